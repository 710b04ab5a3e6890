"""MindSpore itself as the tests' reference: the same small program run there and here.

MindSpore lives in a venv of its own (``numpy<2``), never in this process: the tests find
its Python through ``MINDSPORE_PYTHON`` (e.g. ``~/.cache/mindspore-ref-venv/bin/python``)
and skip, with one line saying so, where it is unset or absent (CI). One subprocess runs
every program of a test module in every mode (MindSpore's import takes seconds), through
:mod:`tests.mindspore_ref.driver`; ours run in this process through the same
driver code, so both results are encoded alike and compared with :func:`assert_same`:
the structure, each tensor's dtype and shape exactly, integer and bool values exactly,
floats to ``rtol``/``atol``, and errors by kind.

A program is source using ``ms``, ``nn``, ``ops``, ``Tensor`` and ``np`` (the prelude
imports them from the engine) that defines ``main()``; see the driver's docstring.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.mindspore_ref import driver

MINDSPORE_PYTHON = os.environ.get("MINDSPORE_PYTHON", "")
have_mindspore = bool(MINDSPORE_PYTHON) and Path(MINDSPORE_PYTHON).is_file()
needs_mindspore = pytest.mark.skipif(
    not have_mindspore,
    reason="no MindSpore reference: set MINDSPORE_PYTHON to the python of a venv with "
           "mindspore 2.10 (numpy<2) to run the differential tests")

PRELUDE = "import numpy as np\nimport {engine} as ms\nfrom {engine} import nn, ops, Tensor\n"
MODES = ("graph", "pynative")


def write_program(folder: Path, name: str, source: str, engine: str) -> Path:
    """The program as a module file importing ``engine`` ('mindspore' or 'framework')."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(PRELUDE.format(engine=engine) + source)
    return path


def mindspore_results(programs: Mapping[str, str], folder: Path,
                      modes: Iterable[str] = MODES, timeout: float = 900) -> dict[str, Any]:
    """Every program's result in MindSpore, by ``"mode:name"`` (one subprocess)."""
    paths = [write_program(folder / "mindspore", n, s, "mindspore") for n, s in programs.items()]
    out = folder / "mindspore.json"
    jobs = [f"{mode}:{p}" for mode in modes for p in paths]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "GLOG_v": "3"}
    # in the folder: MindSpore's O1 rewrite writes a `rewritten_network` folder where it runs
    done = subprocess.run([MINDSPORE_PYTHON, driver.__file__, str(out), *jobs], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def framework_result(name: str, source: str, mode: str, folder: Path) -> Any:
    """The program's result here, in ``mode``, encoded as the driver encodes MindSpore's."""
    import framework

    path = write_program(folder / f"framework_{mode}", name, source, "framework")
    try:
        return driver.run_program(framework, mode, path)
    finally:
        framework.set_context(mode=framework.PYNATIVE_MODE)


class Differential:
    """A test module's programs, run lazily and once: ``ours(mode, name)`` here,
    ``mindspore(mode, name)`` in MindSpore (every program and mode in one subprocess, on
    first use; call it only from tests marked ``needs_mindspore``)."""

    def __init__(self, programs: Mapping[str, str]) -> None:
        self.programs = dict(programs)
        self._ours: dict[tuple[str, str], Any] = {}
        self._theirs: dict[str, Any] | None = None
        self._folder: Path | None = None

    def folder(self) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="mindspore-ref-"))
        return self._folder

    def ours(self, mode: str, name: str) -> Any:
        if (mode, name) not in self._ours:
            self._ours[mode, name] = framework_result(name, self.programs[name], mode,
                                                      self.folder())
        return self._ours[mode, name]

    def mindspore(self, mode: str, name: str) -> Any:
        if self._theirs is None:
            self._theirs = mindspore_results(self.programs, self.folder())
        return self._theirs[f"{mode}:{name}"]


def tensor(value: Any, dtype: str) -> dict[str, Any]:
    """An expected tensor result, encoded (``tensor([1, 2], "int32")``)."""
    array = np.asarray(value, dtype=dtype)
    return driver.encode(array)


def assert_same(ours: Any, ref: Any, where: str = "result", rtol: float = 1e-5,
                atol: float = 1e-6) -> None:
    """``ours`` matches ``ref`` (both encoded): see the module docstring."""
    if isinstance(ref, dict) and "error" in ref:
        assert isinstance(ours, dict) and "error" in ours, (
            f"{where}: the reference raised {ref['error']} ({ref['message']}); we gave {ours}")
        return
    if isinstance(ours, dict) and "error" in ours:
        raise AssertionError(f"{where}: we raised {ours['error']}: {ours['message']}")
    if isinstance(ref, list):
        assert isinstance(ours, list) and len(ours) == len(ref), (
            f"{where}: expected {len(ref)} results, got {ours}")
        for i, (o, r) in enumerate(zip(ours, ref)):
            assert_same(o, r, f"{where}[{i}]", rtol, atol)
        return
    if "py" in ref:
        assert ours == ref, f"{where}: expected {ref['py']!r}, got {ours}"
        return
    assert ours.get("dtype") == ref["dtype"], (
        f"{where}: dtype {ours.get('dtype')}, expected {ref['dtype']} ({ours} vs {ref})")
    assert ours["shape"] == ref["shape"], f"{where}: shape {ours['shape']}, expected {ref['shape']}"
    got, want = np.asarray(ours["value"]), np.asarray(ref["value"])
    if np.dtype(ref["dtype"]).kind == "f":
        assert ours.get("nonfinite", []) == ref.get("nonfinite", []), f"{where}: inf/nan differ"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def both_modes(fn: Any, *arrays: np.ndarray) -> list[np.ndarray]:
    """``fn`` on the arrays as Tensors in PyNative, then compiled (a Cell in graph mode): the
    two results as NumPy arrays (for the checks that need no MindSpore)."""
    import framework as ms

    class Net(ms.nn.Cell):
        def construct(self, *xs):
            return fn(*xs)

    out = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            out.append(Net()(*(ms.Tensor(a) for a in arrays)).asnumpy())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return out
