"""An absent MindSpore name (:mod:`framework.absent_names`): an AttributeError subclass
whose one line names it, says where the coverage table is and the closest name present in
any namespace; ``hasattr`` stays False, ``getattr`` defaults work, lazily loaded names still
load. The names come from MindSpore 2.10's list (``docs/mindspore_names.json``), shipped as
package data that must be current."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, absent_names
from framework.absent_names import NAMESPACES, AbsentNameError, mindspore_names, present_names
from tests.mindspore_ref.absent_names_data import TARGET, render


def _holder(namespace: str):
    return absent_names._holder(namespace)


def _absent_mindspore_names(namespace: str) -> list[str]:
    return sorted(mindspore_names().get(namespace, frozenset()) - set(present_names(namespace))
                  - {n for n in dir(_holder(namespace))})


def test_package_data_is_generated_from_the_docs_list():
    assert TARGET.read_text() == render(), "run: python -m tests.mindspore_ref.absent_names_data"
    assert set(mindspore_names()) == set(NAMESPACES) - {"ms"}


@pytest.mark.parametrize("namespace", sorted(set(NAMESPACES) - {"ms"}))
def test_an_absent_mindspore_name_raises_one_line_naming_it(namespace):
    absent = _absent_mindspore_names(namespace)  # none: a name MindSpore lacks too
    name = absent[0] if absent else "no_such_name"
    holder = _holder(namespace) if namespace != "Tensor" else Tensor(np.ones(2, np.float32))
    assert not hasattr(holder, name)
    assert getattr(holder, name, "default") == "default"
    with pytest.raises(AttributeError) as caught:
        getattr(holder, name)
    assert isinstance(caught.value, AbsentNameError)
    message = str(caught.value)
    said = "is MindSpore 2.10 API" if absent else f"is not a name of MindSpore 2.10's {namespace}"
    assert "\n" not in message and f"{namespace}.{name} {said}" in message
    assert "docs/api_coverage.md" in message


def test_the_closest_name_is_the_same_name_in_another_namespace_first():
    """Found from the lists, not named here: a MindSpore name absent in one namespace and
    present in another must be offered from that one."""
    found = 0
    for namespace in sorted(set(NAMESPACES) - {"ms"}):
        for name in _absent_mindspore_names(namespace)[:40]:
            elsewhere = [ns for ns in NAMESPACES if ns != namespace and name in present_names(ns)]
            if elsewhere:
                message = str(AbsentNameError(namespace, name))
                assert message.endswith(f"the closest name present: {elsewhere[0]}.{name}"), message
                found += 1
    assert found, "no name to check the cross-namespace suggestion with"


def test_misspelled_names_get_the_nearest_spelling():
    with pytest.raises(AttributeError, match=r"ops\.sofmax is not a name of MindSpore 2\.10's ops.*"
                                             r"closest name present: ops\.softmax$"):
        ms.ops.sofmax  # noqa: B018
    with pytest.raises(AttributeError, match=r"closest name present: ms\.Model$"):
        ms.Modle  # noqa: B018
    with pytest.raises(AttributeError, match=r"Tensor\.asnumpi .*closest name present: Tensor\.asnumpy$"):
        Tensor(np.ones(2)).asnumpi  # noqa: B018


def test_lazy_names_private_names_and_imports_behave_as_before():
    assert ms.Model.__name__ == "Model" and ms.dataset.__name__.endswith("dataset")
    with pytest.raises(AttributeError) as caught:
        Tensor(np.ones(2))._no_such_slot  # noqa: B018
    assert not isinstance(caught.value, AbsentNameError)
    with pytest.raises(ImportError):
        from framework.nn import NoSuchCell  # noqa: F401


def test_the_message_is_built_only_when_read():
    error = AbsentNameError("ops", "no_such_op")
    assert error._message is None
    assert "ops.no_such_op" in str(error) and error._message is not None
    assert isinstance(error, AttributeError) and error.missing == "no_such_op"
