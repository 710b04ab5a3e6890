"""The print format of compiled code (``print``, ``ops.Print`` in graph mode) and of
``ops.Print`` in PyNative (:mod:`framework.ops.debug`), against expectations derived from
NumPy (its ``array2string`` and float formatting) and from the arrays themselves; MindSpore's
own answers are in ``tests/mindspore_ref/test_ms_print.py``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ops.debug import graph_text, print_items

RNG = np.random.default_rng(0)
HEAD = re.compile(r"Tensor\(shape=\[([0-9, ]*)\], dtype=(\w+), value=\n?(.*)\)$", re.S)


def body(text):
    """(shape, dtype name, value text) of a printed tensor."""
    match = HEAD.match(text)
    assert match, text
    shape = [int(n) for n in match.group(1).split(", ") if n]
    return shape, match.group(2), match.group(3)


def numpy_text(array):
    """NumPy's layout of ``array`` with MindSpore's shortening (every dimension over 6 in
    2-d and higher tensors) and no blank lines between blocks."""
    text = np.array2string(array, threshold=0 if array.ndim > 1 else 1000, edgeitems=3,
                           max_line_width=10 ** 9)
    return re.sub(r"\n\s*\n", "\n", text)


@pytest.mark.parametrize("shape,dtype", [((3, 4), np.int32), ((2, 3, 4), np.int64), ((10, 5), np.int16),
                                         ((100, 100), np.int32), ((20, 20, 20), np.int32),
                                         ((7, 2, 30), np.uint8), ((4, 9), np.bool_), ((2, 2, 2, 2), np.int8)])
def test_integer_and_bool_layout_is_numpys(shape, dtype):
    array = RNG.integers(-50 if np.issubdtype(dtype, np.signedinteger) else 0, 300, shape).astype(dtype)
    got_shape, name, value = body(graph_text(array))
    assert got_shape == list(shape) and name == str(ms.dtype.from_numpy(array.dtype))
    assert value == numpy_text(array)


@pytest.mark.parametrize("dtype,digits,width",
                         [(np.float32, 8, 15), (np.float64, 8, 15), (np.float16, 4, 11)])
def test_floats_are_scientific_in_fixed_columns(dtype, digits, width):
    array = (RNG.standard_normal((3, 5)) * 10.0 ** RNG.integers(-3, 4, (3, 5))).astype(dtype)
    _, _, value = body(graph_text(array))
    want = [" ".join(np.format_float_scientific(v, precision=digits, unique=False).rjust(width) for v in row)
            for row in array]
    assert value == "[" + "\n ".join(f"[{row}]" for row in want) + "]"


def test_float32_values_read_back_exactly():
    array = RNG.standard_normal(40).astype(np.float32)
    _, _, value = body(graph_text(array))
    np.testing.assert_array_equal(np.array(value.strip("[]").split(), np.float32), array)


def test_special_floats_right_aligned():
    array = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45], np.float32)  # 1e-45: a subnormal
    _, _, value = body(graph_text(array))
    assert value == "[" + " ".join(s.rjust(15) for s in ["nan", "inf", "-inf", "-0.00000000e+00",
                                                           "0.00000000e+00"]) + "]"


def test_long_1d_tensors_wrap_or_shorten():
    for n, per_line in ((30, 24), (48, 24), (1000, 24)):
        array = np.arange(n, dtype=np.int32)
        _, _, value = body(graph_text(array))
        lines = value.split("\n")
        assert len(lines) == n // per_line + 1
        assert [int(v) for v in value.strip("[] \n").split()] == list(range(n))
    floats = np.arange(13, dtype=np.float32)
    assert len(body(graph_text(floats))[2].split("\n")) == 2  # 12 floats a line
    _, _, value = body(graph_text(np.arange(1001, dtype=np.int64)))
    assert value == numpy_text(np.arange(1001))


def test_zero_d_tensors_print_as_c_streams_do():
    cases = {np.float32(0.1) - np.float32(2.5) + np.float32(3): 0.6, np.float64(123456789.0): 1.23457e8,
             np.float16(0.1): 0.0999756}
    for value, shown in cases.items():
        text = graph_text(np.asarray(value))
        digits = text.split("e")[0].replace(".", "").lstrip("0")
        assert float(text) == pytest.approx(shown, rel=1e-6) and len(digits) <= 6  # %g: 6 significant
    assert [graph_text(np.asarray(v)) for v in (np.float32(3), np.float32(-0.0), np.int64(-7), np.bool_(True),
                                                 np.uint8(65))] == ["3", "-0", "-7", "1", "A"]


def test_print_items_flatten_containers():
    x = Tensor(np.array([1, 2], np.int32))
    items = print_items(("s", (1, 2), [3], (x, ("a", 2)), {"k": x}, True, 1.5, None, (1.5, 2.5)))
    assert items[:3] == ["s", "(1, 2)", "(3)"] and items[3] is x and items[4:6] == ["a", "2"]
    assert items[6] is x and items[7:] == ["1", "1.5", "None", "( 1.50000000e+00,  2.50000000e+00)"]


def run_graph(fn, *args):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class Printer(nn.Cell):
    def construct(self, x, y):
        print("x:", x, y)
        ops.Print()("p", x)
        return x


def test_compiled_print_writes_each_argument_on_its_own_line(capfd):
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    y = np.float32(2.5)
    want = ["x:", *graph_text(x).split("\n"), "2.5", "p", *graph_text(x).split("\n")]
    capfd.readouterr()
    run_graph(Printer(), Tensor(x), Tensor(y))
    assert capfd.readouterr().out.splitlines() == want
    ms.jit(Printer().construct)(Tensor(x), Tensor(y))
    assert capfd.readouterr().out.splitlines() == want
    Printer()(Tensor(x), Tensor(y))  # PyNative: Python's print, ops.Print as repr
    want = [*f"x: {x} {y}".split("\n"), "p", *repr(Tensor(x)).split("\n")]
    assert capfd.readouterr().out.splitlines() == want


def test_compiled_print_takes_no_keywords_and_prints_nothing_for_no_arguments(capfd):
    @ms.jit
    def nothing(x):
        print()
        return x + 1

    capfd.readouterr()
    nothing(Tensor(np.ones(2, np.float32)))
    assert capfd.readouterr().out == ""

    @ms.jit
    def with_sep(x):
        print(x, x, sep=",")
        return x

    with pytest.raises(RuntimeError, match="keyword argument 'sep'"):
        with_sep(Tensor(np.ones(2, np.float32)))
