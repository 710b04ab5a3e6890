"""MindSpore's graph-compilation context keys: ``ms.STRICT``/``ms.COMPATIBLE``/``ms.LAX``
and ``set_context(jit_syntax_level=..., jit_config=..., jit_level=...)`` are accepted,
checked and read back (they change nothing: one subset of Python, one TVM pipeline); bad
values are refused as MindSpore refuses them."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, context, ops
from tests.mindspore_ref.reference import Differential, assert_same, needs_mindspore

KEYS = ("jit_syntax_level", "jit_config", "jit_level")


@pytest.fixture(autouse=True)
def _restore_keys():
    saved = {k: ms.get_context(k) for k in KEYS}
    yield
    ms.set_context(**saved)


def test_levels_have_mindsporess_values():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    assert (context.STRICT, context.COMPATIBLE, context.LAX) == (0, 1, 2)
    assert ms.get_context("jit_syntax_level") == ms.LAX
    assert ms.get_context("jit_config") == {} and ms.get_context("jit_level") == ""


def test_keys_are_kept_and_graph_mode_still_runs():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT,
                   jit_config={"jit_level": "O2", "infer_boost": "off"}, jit_level="O1")
    assert ms.get_context("jit_syntax_level") == ms.STRICT
    assert ms.get_context("jit_config") == {"jit_level": "O2", "infer_boost": "off"}
    assert ms.get_context("jit_level") == "O1"
    out = ms.jit(lambda x: ops.relu(x) * 2)(Tensor(np.array([-1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [0.0, 4.0])


@pytest.mark.parametrize("key, value, error", [
    ("jit_syntax_level", 5, ValueError),
    ("jit_syntax_level", "LAX", TypeError),
    ("jit_config", {"jit_level": "O9"}, ValueError),
    ("jit_config", {"other": 3}, ValueError),
    ("jit_config", "O0", TypeError),
    ("jit_level", "fast", ValueError),
])
def test_bad_values_are_refused(key, value, error):
    with pytest.raises(error, match=key):
        ms.set_context(**{key: value})


PROGRAMS = {"jit_keys": '''
def main():
    ms.set_context(jit_syntax_level=ms.STRICT, jit_config={"jit_level": "O1"})
    first = (ms.get_context("jit_syntax_level"), ms.get_context("jit_config")["jit_level"])
    ms.set_context(jit_syntax_level=ms.LAX, jit_config={})
    return ms.STRICT, ms.COMPATIBLE, ms.LAX, first, ms.get_context("jit_syntax_level")
'''}
RUN = Differential(PROGRAMS)


@needs_mindspore
def test_against_mindspore():
    assert_same(RUN.ours("pynative", "jit_keys"), RUN.mindspore("pynative", "jit_keys"))
