"""Graph-mode control flow: clear errors (one-path variables, mismatched branches, loop
variables changing dtype, unsupported syntax), Python conditions still folding, the IR
artifacts of nested regions, and CUDA code generation for a control-flow graph."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ir import GraphModeError

from .control_flow_cases import f32, i32

FILE = __file__


def line_of(fn, marker: str = "# <-") -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, text in enumerate(lines) if marker in text)


def graph_error(fn, *args) -> str:
    with pytest.raises(GraphModeError) as info:
        ms.jit(fn)(*args)
    return str(info.value)


# -- variables and specs that differ between paths --------------------------------------------------
def one_path_returned(x):
    if x.sum() > 0:  # <-
        y = x + 1
    return y  # noqa: F821 (the point of the test)


def one_path_used(x):
    if x.sum() > 0:  # <-
        y = x + 1
    z = y * 2  # noqa: F821
    return z


@pytest.mark.parametrize("fn", [
    one_path_returned, one_path_used])
def test_variable_defined_on_one_path_only(fn):
    message = graph_error(fn, f32([1.0, 2.0]))
    line = line_of(fn)
    assert "'y'" in message and (f"line {line}" in message or f"{FILE}:{line}" in message), message


def branch_shapes(x):
    if x.sum() > 0:  # <-
        y = x
    else:
        y = x[:1]
    return y


def branch_dtypes(x):
    y = x * 2 if x.sum() > 0 else ops.cast(x, ms.int32)  # <-
    return y


def test_branches_with_different_shapes_or_dtypes():
    message = graph_error(branch_shapes, f32([1.0, 2.0]))
    assert "'y'" in message and "float32[2]" in message and "float32[1]" in message
    assert f"{FILE}:{line_of(branch_shapes)}" in message
    message = graph_error(branch_dtypes, f32([1.0, 2.0]))
    assert "float32" in message and "int32" in message
    assert f"{FILE}:{line_of(branch_dtypes)}" in message


def loop_dtype(x, n):
    i = 0
    while i < n:  # <-
        x = ops.cast(x, ms.int32)
        i += 1
    return x


def loop_shape(x, n):
    for _ in range(n):  # <-
        x = ops.concat((x, x))
    return x


def test_loop_variables_must_keep_dtype_and_shape():
    message = graph_error(loop_dtype, f32([1.0]), i32(2))
    assert "'x'" in message and "float32[1]" in message and "int32[1]" in message
    assert f"{FILE}:{line_of(loop_dtype)}" in message
    message = graph_error(loop_shape, f32([1.0]), i32(2))
    assert "'x'" in message and "float32[1]" in message and "float32[2]" in message
    assert f"{FILE}:{line_of(loop_shape)}" in message


# -- unsupported syntax ----------------------------------------------------------------------------------
COUNTER = 0


def uses_try(x):
    try:  # <-
        x = x + 1
    except ValueError:
        pass
    return x


def uses_global(x):
    global COUNTER  # <-
    COUNTER = 1
    return x


def uses_del(x):
    y = x + 1
    del y  # <-
    return x


def uses_yield(x):
    yield x  # <-


def uses_for_else(x):
    for _ in range(2):  # <-
        x = x + 1
    else:
        x = x - 1
    return x


def uses_while_else(x):
    while x.sum() < 3:  # <-
        x = x + 1
    else:
        x = x - 1
    return x


def uses_nonlocal(x):
    y = x

    def inner():
        nonlocal y  # <-
        y = y + 1
    inner()
    return y


@pytest.mark.parametrize("fn,construct", [
    (uses_try, "try"), (uses_global, "global"), (uses_del, "del"), (uses_yield, "yield"),
    (uses_for_else, "else"), (uses_while_else, "else"), (uses_nonlocal, "nonlocal")])
def test_unsupported_syntax_names_construct_and_line_and_writes_analyze_fail(fn, construct, tmp_path):
    ms.set_context(save_graphs_path=str(tmp_path))
    message = graph_error(fn, f32([1.0]))
    assert construct in message and f"{FILE}:{line_of(fn)}" in message
    assert len(message.splitlines()[0]) > 20
    assert list(tmp_path.rglob("analyze_fail.ir")), "no analyze_fail.ir written"


# -- Python conditions fold; IR artifacts show the nesting ----------------------------------------------
class Flags(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        if self.training:
            x = x * 2
        if x.shape[0] > 1:
            x = x + 1
        for k in range(2):
            if k == 1:
                break
            x = x - 0.5
        while False:
            x = x * 100
        return self.fc(x)


def test_python_conditions_fold_and_stage_no_regions(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path), mode=ms.GRAPH_MODE)
    net = Flags()
    x = np.ones((2, 3), np.float32)
    for train in (True, False):
        net.set_train(train)
        graph = net(Tensor(x)).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = net(Tensor(x)).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for ir in tmp_path.rglob("02_opt.ir"):
        text = ir.read_text()
        assert " If(" not in text and " While(" not in text, text


def folding_if(x):
    c = ops.add(Tensor(np.ones(1, np.float32)), 1.0)
    if c > 0:
        x = x + 1
    return x


def nested(x, n):
    i = 0
    while i < n:  # <- while
        if x.sum() > 1:  # <- if
            x = x * 0.5
        else:
            x = x + 1
        i += 1
    return x


def test_ir_shows_nested_regions_and_folds_constant_ifs(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    out = ms.jit(folding_if)(f32([1.0]))
    np.testing.assert_array_equal(out.asnumpy(), [2.0])
    assert "If(" not in (tmp_path / "folding_if" / "02_opt.ir").read_text()
    for n in (0, 3):
        want = np.array([1.0], np.float32)
        for _ in range(n):
            want = want * np.float32(0.5) if want.sum() > 1 else want + 1
        np.testing.assert_array_equal(ms.jit(nested)(f32([1.0]), i32(n)).asnumpy(), want)
    lines = (tmp_path / "nested" / "02_opt.ir").read_text().splitlines()

    def find(word: str) -> tuple[int, str]:
        return next((k, line) for k, line in enumerate(lines) if word in line)

    (w, while_line), (c, cond), (b, body) = find(" While("), find("cond("), find("body(")
    (i, if_line), (t, then), (e, other) = find(" If("), find("then("), find("else(")

    def indent(line: str) -> int:
        return len(line) - len(line.lstrip())

    assert w < c < b < i < t < e
    assert indent(while_line) < indent(cond) == indent(body) <= indent(if_line)
    assert indent(if_line) < indent(then) == indent(other)
    dot = (tmp_path / "nested" / "graph.dot").read_text()
    assert "subgraph cluster" in dot and "While body" in dot and "If then" in dot and "If else" in dot


def test_region_nodes_carry_the_line_of_their_statement(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    ms.jit(nested)(f32([1.0]), i32(2))
    text = (tmp_path / "nested" / "02_opt.ir").read_text()
    while_line = next(line for line in text.splitlines() if " While(" in line)
    if_line = next(line for line in text.splitlines() if " If(" in line)
    assert while_line.endswith(f"test_control_flow_errors.py:{line_of(nested, '# <- while')} nested")
    assert if_line.endswith(f"test_control_flow_errors.py:{line_of(nested, '# <- if')} nested")


def test_cuda_code_generation_for_control_flow_without_running(tmp_path):
    ms.set_context(device_target="GPU", save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        jf = ms.jit(nested)
        report = jf.compile(f32([1.0, 2.0]), i32(3), load=False)
    finally:
        ms.set_context(device_target="CPU")
    assert report.target != "llvm"
    assert "__global__" in (tmp_path / "nested" / "20_kernels.cu").read_text()
    text = (tmp_path / "nested" / "02_opt.ir").read_text()
    assert " While(" in text and " If(" in text


def vector_condition(x):
    if x > 0:  # <-
        x = x + 1
    return x


def test_a_condition_with_several_elements_asks_for_any_or_all():
    message = graph_error(vector_condition, f32([1.0, 2.0]))
    assert "(2,)" in message and ".any()" in message and ".all()" in message
    assert f"{FILE}:{line_of(vector_condition)}" in message
