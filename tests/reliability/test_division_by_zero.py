"""Division by zero in graph mode (issue 28, item 1): a float divided by a zero that TVM can
see while compiling (``x / ops.zeros_like(x)``) ended the process with exit 134 (a C++
error inside scheduling), an integer one read at run time would trap. Now float division is
IEEE (+-inf, nan); an integer ``//`` by zero gives MindSpore's CPU result (the dtype's
largest value for x > 0, its smallest for x < 0, 0 for 0) and ``%`` by zero MindSpore's
too (int32's minimum), in both modes alike. The integer minimum divided by -1 (issue 35)
trapped too (SIGFPE, exit 136): MindSpore gives the minimum (``//``) and 0 (``%``).
MindSpore's own answers are recorded in tests/mindspore_ref/ms_degenerate_programs.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops


def _quotients(x, y, xf, yf):
    z = ops.zeros_like(x)
    return (ops.floor_div(x, y), ops.floor_mod(x, y), ops.floor_div(x, z), ops.floor_mod(x, z),
            x / y, x / z, xf / yf, xf / ops.zeros_like(xf), ops.floor_div(xf, yf),
            ops.floor_mod(xf, yf))


def test_division_by_zero_gives_the_same_values_in_both_modes():
    x = Tensor(np.array([5, -5, 0, 7], np.int32))
    y = Tensor(np.array([2, 0, 3, -2], np.int32))
    xf = Tensor(np.array([5, -5, 0, 7], np.float32))
    yf = Tensor(np.array([2, 0, 0, -2], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's divide-by-zero warnings
        want = [t.asnumpy() for t in _quotients(x, y, xf, yf)]
    got = [t.asnumpy() for t in ms.jit(_quotients)(x, y, xf, yf)]
    for i, (w, g) in enumerate(zip(want, got, strict=True)):
        assert w.dtype == g.dtype and np.array_equal(w, g, equal_nan=True), (i, w, g)
    assert np.isinf(got[7][:2]).all() and np.isnan(got[7][2])  # IEEE: 5/0, -5/0, 0/0
    info = np.iinfo(np.int32)
    assert got[2].tolist() == [info.max, info.min, 0, info.max]  # 5, -5, 0, 7 // 0
    assert got[0].tolist() == [2, info.min, 0, -4] and got[3].tolist() == [info.min] * 4


def test_a_compiled_division_by_a_known_zero_does_not_abort(tmp_path):
    script = tmp_path / "div.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import framework as ms
        from framework import ops, Tensor

        @ms.jit
        def f(x, n):
            return x / ops.zeros_like(x), ops.floor_div(n, ops.zeros_like(n))

        a, b = f(Tensor(np.array([1.0, -1.0, 0.0], np.float32)), Tensor(np.array([3, -3], np.int32)))
        print(a.asnumpy().tolist(), b.asnumpy().tolist())
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[inf, -inf, nan] [2147483647, -2147483648]"


@pytest.mark.slow
def test_the_integer_minimum_divided_by_minus_one_does_not_kill_the_process(tmp_path):
    """Each op and dtype compiled in a child process (a trap kills it): MindSpore's answers,
    the same as PyNative's."""
    script = tmp_path / "minimum.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import framework as ms
        from framework import ops, Tensor

        def quotients(x, y):
            return x // y, x % y, ops.floor_div(x, y), ops.floor_mod(x, y), x // -1, x % -1

        for dtype in (np.int8, np.int16, np.int32, np.int64):
            low = np.iinfo(dtype).min
            x, y = Tensor(np.array([low, low, 7], dtype)), Tensor(np.array([-1, 1, -1], dtype))
            eager = [t.asnumpy().tolist() for t in quotients(x, y)]
            compiled = [t.asnumpy().tolist() for t in ms.jit(quotients)(x, y)]
            print(eager == compiled, compiled[:2], compiled[4:])
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 4 and all(line.startswith("True ") for line in lines), done.stdout
    for dtype, line in zip((np.int8, np.int16, np.int32, np.int64), lines, strict=True):
        low = int(np.iinfo(dtype).min)
        assert line == f"True [[{low}, {low}, -7], [0, 0, 0]] [[{low}, {low}, -7], [0, 0, 0]]", line
