"""Graph mode's JIT Fallback and JIT syntax support (framework/frontend/fallback.py,
pyobjects.py): values of runtime tensors follow each call's data (the function runs
interpreted), constants are read while compiling, builtins give MindSpore's containers,
a global read before assignment, ``jit_syntax_level=STRICT`` keeps the one-line error,
and ``lazy_inline`` preserves results. References: NumPy and plain Python, and the other
mode. MindSpore's own answers: tests/mindspore_ref/test_ms_fallback.py."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ir import GraphModeError


def f32(values):
    return Tensor(np.asarray(values, np.float32))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)


# -- values of runtime tensors: interpreted, with each call's data --------------------------
def scaled_by_sum(x):
    return x * float(ops.reduce_sum(x))  # <- needs the value


def first_item(x):
    return int(x[0]), float(x.asnumpy()[1]), bool(x[2])


@pytest.mark.parametrize("data", [[1.0, 2.0, 3.0], [-4.0, 0.5, 0.0]])
def test_values_follow_each_call(data):
    run = ms.jit(scaled_by_sum)
    items = ms.jit(first_item)
    array = np.asarray(data, np.float32)
    np.testing.assert_allclose(run(Tensor(array)).asnumpy(), array * array.sum(), rtol=1e-6)
    assert items(Tensor(array)) == (int(array[0]), float(array[1]), bool(array[2]))


def test_cell_in_graph_mode_matches_pynative(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            n = int(x[2])
            if n > 2:
                return x * n
            return x - n

    x = f32([1.0, 2.0, 3.0])
    graph = Net()(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph, Net()(x).asnumpy())
    np.testing.assert_allclose(graph, [3.0, 6.0, 9.0])


def test_gradient_through_an_interpreted_function(graph_mode):
    x = f32([1.0, 2.0, 3.0])
    graph = ms.grad(scaled_by_sum)(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(scaled_by_sum)(x).asnumpy()
    # float(...) is a Python number: d/dx of x * c is c
    np.testing.assert_allclose(graph, eager)
    np.testing.assert_allclose(graph, np.full(3, 6.0, np.float32))


def test_shape_and_type_through_asnumpy():
    @ms.jit
    def probe(w):
        n = w.asnumpy()
        return len(n), n.shape, isinstance(n, np.ndarray)

    assert probe(Tensor(np.zeros((4, 2), np.int32))) == (4, (4, 2), True)


def test_int_of_a_one_element_tensor_any_rank():
    @ms.jit
    def as_int(x):
        return int(x), float(x)

    assert as_int(f32([[-1.5]])) == (-1, -1.5)
    with pytest.raises(ValueError):
        as_int(f32([1.0, 2.0]))


def test_strict_keeps_the_one_line_error(tmp_path):
    line = inspect.getsourcelines(scaled_by_sum)[1] + 1
    strict = ms.jit(scaled_by_sum, jit_config=ms.JitConfig(jit_syntax_level="STRICT"))
    with pytest.raises(GraphModeError, match=f"{__file__}:{line}"):
        strict(f32([1.0, 2.0]))
    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        with pytest.raises(GraphModeError, match="float"):
            ms.jit(scaled_by_sum)(f32([1.0, 2.0]))
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)


def test_fallback_writes_no_failure_report(tmp_path):
    ms.set_context(save_graphs_path=str(tmp_path))
    try:
        ms.jit(scaled_by_sum)(f32([1.0, 2.0]))
    finally:
        ms.set_context(save_graphs_path=ms.context.DEFAULT_SAVE_GRAPHS_PATH)
    assert not list(tmp_path.rglob("analyze_fail.ir"))


# -- constants and builtins while compiling --------------------------------------------------
def test_constant_tensor_extremes_compile_under_strict():
    """max/min of a constant tensor are read while compiling: no fallback needed."""
    def extremes():
        return max(ms.tensor([1, 5, 3])), min(ms.tensor([4.0, -2.0]))

    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        out = ms.jit(extremes)()
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
    assert out[0].asnumpy() == 5 and out[0].shape == () and out[0].dtype == ms.int64
    assert out[1].asnumpy() == -2.0


def add(a, b):
    return a + b


def builtins_program():
    return (map(add, (1, 2), (3, 4)), map(add, [1, 2], [3, 4]), filter(None, (0, 1, 2)),
            zip([1, 2], "ab"), enumerate("xy", 1), range(2, 7, 2),
            (k * k for k in range(4)), {"a": 1}.keys(), {"a": 1}.items())


def test_builtins_give_mindspores_containers():
    got = ms.jit(builtins_program)()
    python = [list(v) for v in builtins_program()]
    assert [list(v) if isinstance(v, tuple) else v for v in got] == [
        [tuple(p) if isinstance(p, tuple) else p for p in v] for v in python]
    kinds = [type(v) for v in got]
    assert kinds == [tuple, list, list, tuple, tuple, tuple, list, tuple, list]


def test_a_rebound_builtin_name_is_left_alone():
    @ms.jit
    def own_map():
        def map(fn, items):  # noqa: A001  (the point of the test)
            return "mine"

        return map(add, (1, 2))

    assert own_map() == "mine"


def test_numpy_scalars_and_classes_returned():
    @ms.jit
    def objects(x):
        return np.int64(3), np.float32(2.5), type(x), ms.float32, np.arange(3)

    a, b, cls, dtype, array = objects(f32([1.0]))
    assert (a, b, cls, dtype) == (3, 2.5, Tensor, ms.float32)
    assert type(a) is int and type(b) is float and isinstance(array, np.ndarray)
    array[0] = 99  # the caller's own copy
    assert objects(f32([1.0]))[4].tolist() == [0, 1, 2]


# -- a global read before the function assigns it ----------------------------------------------
z = Tensor(np.ones((2, 3), np.float32))


def add_to_global():
    for i in (1, 2, 3):
        z += i  # noqa: F821, F823
    return z


def test_global_read_before_assignment():
    np.testing.assert_allclose(ms.jit(add_to_global)().asnumpy(), np.full((2, 3), 7.0))
    np.testing.assert_allclose(z.asnumpy(), np.ones((2, 3)))  # the global is unchanged


def test_a_name_without_global_still_fails():
    def unbound(x):
        for i in (1, 2):
            w += i  # noqa: F821
        return w

    with pytest.raises(GraphModeError, match="'w'"):
        ms.jit(unbound)(f32([1.0]))


# -- lazy_inline -------------------------------------------------------------------------------
def _blocks(decorate):
    class Block(nn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale
            self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

        def construct(self, x):
            return self.dense(x) * self.scale

    if decorate:
        Block.__init__ = decorate(Block.__init__)
    return nn.SequentialCell([Block(1.0), Block(0.5)])


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_lazy_inline_preserves_results(mode, graph_mode):
    ms.set_context(mode=mode)
    x = f32([[1.0, 2.0, 3.0]])
    plain = _blocks(None)(x).asnumpy()
    for decorate in (ms.lazy_inline, ms.lazy_inline(attrs=["scale"], policy="front")):
        net = _blocks(decorate)
        np.testing.assert_allclose(net(x).asnumpy(), plain)
        assert net[0]._lazy_inline in ("none", "front")
    np.testing.assert_allclose(plain, [[9.0, 9.0, 9.0]])  # 6 * 1.0, then 18 * 0.5


def test_lazy_inline_checks_attrs():
    with pytest.raises(ValueError, match="attrs"):
        ms.lazy_inline(attrs=3)


def test_strict_error_names_the_builtin_and_line():
    def needs_int(x):
        return int(x) + 1  # <-

    line = inspect.getsourcelines(needs_int)[1] + 1
    strict = ms.jit(needs_int, jit_config=ms.JitConfig(jit_syntax_level="STRICT"))
    with pytest.raises(GraphModeError, match=rf"int\(tensor\).*{__file__}:{line}"):
        strict(f32([2.0]))
    assert ms.jit(needs_int)(f32([2.0])) == 3


def test_same_function_in_two_modules_reads_its_own_globals(tmp_path):
    """Equal code objects (one source in two files) keep their own module's globals."""
    import importlib.util

    source = "import framework as ms\n\n\n@ms.jit\ndef func():\n    return VALUE\n"
    results = []
    for k, value in enumerate((1, 2)):
        path = tmp_path / f"mod_{k}.py"
        path.write_text(f"VALUE = {value}\n" + source)
        spec = importlib.util.spec_from_file_location(f"twin_module_{k}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        results.append(module.func())
    assert results == [1, 2]
