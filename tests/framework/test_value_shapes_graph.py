"""Ops whose output shape depends on values (``masked_select``, ``nonzero``, ``unique``,
``x[mask]``) in graph mode: the compiled function is split around them
(framework/ops/host_split.py, framework/graph_split.py). References: NumPy, the same code in
PyNative, finite differences for gradients."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, mint, nn, ops
from framework.graph_mode import cache_stats
from framework.ir.graph import GraphModeError

pytestmark = pytest.mark.slow  # each test compiles several segments with TVM

X = np.array([[0.5, -1.0, 2.0], [-0.25, 3.0, -4.0], [1.5, 0.0, -2.5]], np.float32)


def _both(fn, *args):
    """``fn`` compiled (ms.jit) and in PyNative, on the same arguments: (graph, pynative)."""
    jitted = ms.jit(fn)
    graph = jitted(*[Tensor(a) for a in args])
    assert jitted.last_report.splits  # compiled, split (not run interpreted)
    eager = fn(*[Tensor(a) for a in args])
    return graph, eager


def _arrays(result):
    if isinstance(result, tuple | list):
        return [a for r in result for a in _arrays(r)]
    return [result.asnumpy()]


def _same(graph, eager, references=None):
    got, want = _arrays(graph), _arrays(eager)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)
    for g, r in zip(got, references or []):
        np.testing.assert_array_equal(g, r)


def test_masked_select_and_bool_index_equal_pynative_and_numpy():
    def fn(x):
        y = x * 2.0
        return ops.masked_select(y, y > 0), y[y > 1.0], y[:, y[0] > -1.0], y[y[:, 1] > 0] + 1.0

    graph, eager = _both(fn, X)
    y = X * 2.0
    _same(graph, eager, [y[y > 0], y[y > 1.0], y[:, y[0] > -1.0], y[y[:, 1] > 0] + 1.0])


def test_masked_select_broadcasts_its_mask_and_mint_forms_agree():
    row = np.array([True, False, True])

    def fn(x, m):
        return ops.masked_select(x, m), mint.masked_select(x + 1.0, m), x.masked_select(m)

    graph, eager = _both(fn, X, row)
    _same(graph, eager, [np.broadcast_to(X, X.shape)[np.broadcast_to(row, X.shape)]])


def test_nonzero_both_ways_argwhere_and_where():
    def fn(x):
        z = ops.relu(x)
        return (ops.nonzero(z), ops.nonzero(z, as_tuple=True), ops.argwhere(z),
                mint.nonzero(z), mint.where(z > 1.0))

    graph, eager = _both(fn, X)
    z = np.maximum(X, 0)
    _same(graph, eager, [np.argwhere(z), *np.nonzero(z), np.argwhere(z), np.argwhere(z),
                         *np.nonzero(z > 1.0)])


def test_unique_and_unique_consecutive_with_inverse_and_counts():
    v = np.array([3, 1, 3, 3, 0, 1, 1], np.int32)

    def fn(a, x):
        return (ops.unique(a + 1), ops.unique_consecutive(a, True, True),
                ops.unique_consecutive(x > 0, return_counts=True, dim=0),
                mint.unique(a, return_inverse=True, return_counts=True),
                mint.unique_consecutive(a, return_inverse=True, return_counts=True))

    graph, eager = _both(fn, v, X)
    values, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    _same(graph, eager, [np.array([4, 2, 1]), np.array([0, 1, 0, 0, 2, 1, 1])])
    _same(graph[3], eager[3], [values, inverse, counts])
    _same(graph[4], eager[4], [np.array([3, 1, 3, 0, 1]), np.array([0, 1, 2, 2, 3, 4, 4]),
                               np.array([1, 1, 2, 1, 2])])


def test_zero_selected_elements_give_empty_results():
    graph, eager = _both(lambda x: (x[x > 10.0] * 2.0, ops.nonzero(x > 10.0)), X)
    _same(graph, eager, [np.zeros(0, np.float32), np.zeros((0, 2), np.int64)])


def test_mask_assignment_compiles_as_a_select_without_split():
    mask = X[:, 0] > 0

    @ms.jit
    def fill(x, m):
        x[m] = 7.0
        x[x < -3.0] = Tensor(np.array([9.0, 8.0, 7.0], np.float32))[0]
        y = x * 1.0
        y[m] = Tensor(np.array([1.0, 2.0, 3.0], np.float32))  # a row to every selected row
        return y

    out = fill(Tensor(X), Tensor(mask))
    want = X.copy()
    want[mask] = 7.0
    want[want < -3.0] = 9.0
    want[mask] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(out.asnumpy(), want)
    assert fill.last_report.splits == () and fill.last_report.split_before is None
    assert any(n.prim.name == "Select" for n in fill._latest.graph.nodes)


def test_mask_assignment_of_one_value_per_element_splits():
    def fn(x):
        y = x * 1.0
        y[y < 0] = y[y < 0] * 10.0
        return y

    graph, eager = _both(fn, X)
    _same(graph, eager, [np.where(X < 0, X * 10.0, X)])


class _Masked(nn.Cell):
    """A Cell with a tensor-valued ``if`` before and after its value-dependent op."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, -2.0, 0.5], np.float32)), name="w")

    def construct(self, x):
        y = x * self.w
        if y.sum() > 0:
            y = y + 1.0
        else:
            y = y - 1.0
        picked = y[y > 0]
        total = picked.sum()
        if total > 3.0:
            total = total * 2.0
        return picked, total


def test_cell_in_graph_mode_with_tensor_ifs_around_the_split():
    net = _Masked()
    for x in (X, -X, X * 3.0):
        eager = net(Tensor(x))
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            graph = net(Tensor(x))
            assert net._graph_runner.last_report.splits[0]["op"] == "getitem"
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        _same(graph, eager)


def _masked_loss(w, x):
    y = ops.tanh(x * w)
    return (y[y > 0] ** 2).sum() + ops.masked_select(y * 3.0, x < 0).sum()


def test_value_and_grad_through_the_split_equals_pynative_and_finite_differences():
    w = np.array([0.7, -1.3, 0.4], np.float32)
    grad_fn = ms.value_and_grad(_masked_loss)
    (loss, grad), (loss_e, grad_e) = _both(grad_fn, w, X)
    _same((loss, grad), (loss_e, grad_e))
    eps, w64, x64 = 1e-4, w.astype(np.float64), X.astype(np.float64)

    def numpy_loss(wv):
        y = np.tanh(x64 * wv)
        return (y[y > 0] ** 2).sum() + (y * 3.0)[x64 < 0].sum()

    fd = [(numpy_loss(w64 + eps * e) - numpy_loss(w64 - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(grad.asnumpy(), fd, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(loss.asnumpy(), numpy_loss(w64), rtol=1e-5)


def test_train_step_of_a_cell_with_a_mask_updates_like_pynative():
    def run(mode):
        ms.set_seed(3)
        net = _Masked()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        grad_fn = ms.value_and_grad(lambda x: net(x)[1], None, opt.parameters)

        def step(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss

        jitted = ms.jit(step) if mode == "graph" else step
        losses = [jitted(Tensor(x)).asnumpy() for x in (X, X * 0.5, X)]
        if mode == "graph":
            assert jitted.last_report.splits[0]["op"] == "getitem" and jitted.last_report.updates
        return losses, net.w.asnumpy()

    (graph_losses, graph_w), (eager_losses, eager_w) = run("graph"), run("pynative")
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-6)
    np.testing.assert_allclose(graph_w, eager_w, rtol=1e-6)


def test_same_count_reuses_segments_and_a_new_count_compiles_only_the_one_after():
    @ms.jit
    def fn(x):
        y = x * 2.0
        return ops.masked_select(y, y > 0).sum() + y.mean()

    base = np.array([1.0, -2.0, 3.0, -4.0], np.float32)
    fn(Tensor(base))
    assert fn.last_report.splits[0]["op"] == "masked_select"
    assert "test_value_shapes_graph.py:" in fn.last_report.splits[0]["at"]
    assert fn.last_report.splits[0]["answer_shapes"] == [[2]]
    traces = cache_stats["traces"]
    out = fn(Tensor(np.array([5.0, 6.0, -1.0, -1.0], np.float32)))  # two selected again
    assert cache_stats["traces"] == traces and not fn.last_call_compiled
    np.testing.assert_allclose(out.asnumpy(), 22.0 + 4.5, rtol=1e-6)
    fn(Tensor(np.array([5.0, 6.0, 1.0, -1.0], np.float32)))  # three: one more segment
    assert cache_stats["traces"] == traces + 1 and fn.last_report.splits[0]["answer_shapes"] == [[3]]


def test_summary_json_says_where_the_graph_was_split(tmp_path):
    @ms.jit
    def fn(x):
        return ops.unique(x * 2.0)[0]

    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        fn(Tensor(np.array([1.0, 2.0, 1.0], np.float32)))
    finally:
        ms.set_context(save_graphs=False)
    import json

    summaries = [json.loads(p.read_text()) for p in sorted(tmp_path.rglob("summary.json"))]
    assert [s["split_before"]["op"] for s in summaries if s["split_before"]] == ["unique"]
    assert [s["splits"][0]["op"] for s in summaries if s["splits"]] == ["unique"]


def test_segments_share_the_random_masks_of_one_call():
    drop = nn.Dropout(p=0.5)
    drop.set_train(True)

    @ms.jit
    def fn(x):
        y = drop(x)
        return y, y[y > 0]

    y, picked = fn(Tensor(np.ones((64,), np.float32)))
    np.testing.assert_array_equal(picked.asnumpy(), y.asnumpy()[y.asnumpy() > 0])


def test_value_dependent_op_inside_a_tensor_if_stops_with_one_line():
    @ms.jit
    def fn(x):
        if x.sum() > 0:
            x = ops.masked_select(x, x > 1.0) * 1.0
        return x

    with pytest.raises(GraphModeError) as info:
        fn(Tensor(X))
    message = str(info.value)
    assert "\n" not in message and message.startswith("masked_select:")
    assert "test_value_shapes_graph.py:" in message and "PYNATIVE_MODE" in message
    assert "ms.jit" in message


def test_python_value_needed_after_the_split_runs_interpreted_like_before_it():
    @ms.jit
    def fn(x):
        picked = x[x > 0]
        return picked * float(picked.sum())

    out = fn(Tensor(X))
    picked = X[X > 0]
    np.testing.assert_allclose(out.asnumpy(), picked * picked.sum(), rtol=1e-6)
    np.testing.assert_allclose(fn(Tensor(-X)).asnumpy(), (-X)[-X > 0] * (-X)[-X > 0].sum(),
                               rtol=1e-6)


def test_primitive_classes_split_too():
    from framework.ops import operations as P

    v = np.array([3.0, 1.0, 3.0, 0.0, 1.0], np.float32)

    def fn(x):
        y = x * 2.0
        return P.Unique()(y), P.NonZero()(y), P.UniqueConsecutive(True, True)(y)

    graph, eager = _both(fn, v)
    y = v * 2.0
    _same(graph, eager, [np.array([6.0, 2.0, 0.0]), np.array([0, 1, 0, 2, 1]), np.argwhere(y)])


def test_an_op_still_needing_pynative_names_itself_its_line_and_the_fix():
    with pytest.raises(RuntimeError) as info:
        ms.jit(lambda x: mint.bincount(x * 2))(Tensor(np.array([1, 2, 2], np.int64)))
    message = str(info.value)
    assert "\n" not in message and message.startswith("bincount:")
    assert "test_value_shapes_graph.py:" in message
    assert "PYNATIVE_MODE" in message and "ms.jit" in message


def test_a_split_whose_input_comes_from_an_earlier_split():
    v = np.array([2.0, -1.0, 2.0, 3.0, -5.0, 3.0], np.float32)

    def fn(x):
        picked = x[x > 0] * 1.5
        values, inverse = ops.unique(picked)
        return values, inverse, ops.nonzero(inverse)

    traces = cache_stats["traces"]
    graph, eager = _both(fn, v)
    assert cache_stats["traces"] == traces + 4  # three segments before a split, one after
    _same(graph, eager, [np.array([3.0, 4.5]), np.array([0, 0, 1, 1], np.int32),
                         np.array([[2], [3]])])
