"""MindSpore's sparse tensors and ``coo_*``/``csr_*`` functions
(:mod:`tests.mindspore_ref.ms_ops_sparse_programs`) in both modes, values, dtypes and
gradients: against MindSpore's recorded answers (``ms_ops_sparse_expected.json``, CI), our
two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its
venv. Then what MindSpore 2.10 cannot answer on CPU (its AKG-built CSR kernels, coo_concat
in graph mode, csr_softmax's and coo_concat's gradients, coalesce in PyNative), against
NumPy and finite differences.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import COOTensor, CSRTensor, Tensor, ops
from tests.mindspore_ref.ms_ops_sparse_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_ops_sparse_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 2e-5, "atol": 2e-6}})
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- what MindSpore 2.10 gives no answer for on CPU (its AKG-built CSR kernels fail, its graph
# mode zeroes coo_concat, csr_softmax and coo_concat have no bprop): NumPy and finite differences
INDPTR = np.array([0, 2, 2, 5], np.int32)
COLS = np.array([0, 3, 1, 2, 3], np.int32)
VALS = np.array([0.5, -1.5, 2.0, 0.25, -3.0], np.float32)
SHAPE = (3, 4)
ROWS = np.repeat(np.arange(3), np.diff(INDPTR)).astype(np.int32)
DENSE = np.zeros(SHAPE, np.float32)
DENSE[ROWS, COLS] = VALS
RIGHT = np.arange(1, 13, dtype=np.float32).reshape(SHAPE) / 4


def _csr(indptr, cols, vals):
    return CSRTensor(indptr, cols, vals, SHAPE)


@pytest.mark.slow
@pytest.mark.parametrize("name, fn, want", [
    ("csr2coo", lambda p, c, v, d: ops.csr2coo(p, 5), ROWS),
    ("coo2csr", lambda p, c, v, d: ops.coo2csr(ops.csr2coo(p, 5), 3), INDPTR),
    ("csr_mul", lambda p, c, v, d: ops.csr_mul(_csr(p, c, v), d).values, VALS * RIGHT[ROWS, COLS]),
    ("csr_div", lambda p, c, v, d: ops.csr_div(_csr(p, c, v), d).values, VALS / RIGHT[ROWS, COLS]),
    ("csr_mv", lambda p, c, v, d: ops.csr_mv(_csr(p, c, v), d[0].reshape(4, 1)),
     DENSE @ RIGHT[0].reshape(4, 1)),
    ("mm", lambda p, c, v, d: _csr(p, c, v).mm(d.T), DENSE @ RIGHT.T),
    ("csr_reduce_sum", lambda p, c, v, d: ops.csr_reduce_sum(_csr(p, c, v), 1), DENSE.sum(1, keepdims=True)),
    ("csr_gather", lambda p, c, v, d: ops.csr_gather(p, c, d, SHAPE), RIGHT[ROWS, COLS]),
    ("to_coo", lambda p, c, v, d: _csr(p, c, v).to_coo().indices, np.stack([ROWS, COLS], 1)),
    ("to_csr", lambda p, c, v, d: _csr(p, c, v).to_coo().to_csr().indptr, INDPTR),
])
def test_csr_kernels_match_numpy_in_both_modes(name, fn, want):
    for got in both_modes(fn, INDPTR, COLS, VALS, RIGHT):
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)


def test_csr_gradients_reach_the_values():
    dense = Tensor(RIGHT[0].reshape(4, 1))
    g = ops.grad(lambda v: ops.csr_mv(_csr(INDPTR, COLS, v), dense).sum())(Tensor(VALS)).asnumpy()
    np.testing.assert_allclose(g, RIGHT[0][COLS])
    g = ops.grad(lambda v: (ops.csr_mul(_csr(INDPTR, COLS, v), Tensor(RIGHT)).values ** 2).sum())
    np.testing.assert_allclose(g(Tensor(VALS)).asnumpy(), 2 * VALS * RIGHT[ROWS, COLS] ** 2, rtol=1e-6)


def _softmax_rows(values):
    out = np.zeros_like(values, dtype=np.float64)
    for r in range(3):
        part = slice(INDPTR[r], INDPTR[r + 1])
        e = np.exp(values[part] - values[part].max()) if INDPTR[r + 1] > INDPTR[r] else []
        out[part] = e / np.sum(e) if len(e) else []
    return out


@pytest.mark.slow
def test_csr_softmax_in_graph_mode_and_its_gradient():
    def softmax(p, c, v):
        return ops.csr_softmax(_csr(p, c, v), ms.float32).values

    for got in both_modes(softmax, INDPTR, COLS, VALS):
        np.testing.assert_allclose(got, _softmax_rows(VALS), rtol=1e-6)
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    g = ops.grad(lambda v: (ops.csr_softmax(_csr(INDPTR, COLS, v), ms.float32).values
                            * Tensor(w.astype(np.float32))).sum())(Tensor(VALS)).asnumpy()
    eps, numeric = 1e-4, np.zeros(5)
    for i in range(5):
        up, down = VALS.astype(np.float64), VALS.astype(np.float64)
        up[i] += eps
        down[i] -= eps
        numeric[i] = ((_softmax_rows(up) - _softmax_rows(down)) @ w) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_coo_concat_in_graph_mode_and_its_gradient():
    idx = np.stack([ROWS, COLS], 1).astype(np.int64)

    def join(i, v):
        a = COOTensor(i, v, SHAPE)
        return ops.coo_concat((a, ops.coo_neg(a)), 1).values

    order = np.lexsort((np.concatenate([COLS, COLS + 4]), np.concatenate([ROWS, ROWS])))
    want = np.concatenate([VALS, -VALS])[order]
    for got in both_modes(join, idx, VALS):
        np.testing.assert_array_equal(got, want)
    weights = np.arange(10, dtype=np.float32)
    g = ops.grad(lambda v: (join(Tensor(idx), v) * Tensor(weights)).sum())(Tensor(VALS)).asnumpy()
    w = np.zeros(10, np.float32)
    w[order] = weights
    np.testing.assert_allclose(g, w[:5] - w[5:])


def test_coalesce_sums_repeats_in_row_major_order():
    idx = np.array([[2, 3], [0, 1], [2, 3], [1, 0], [0, 1]], np.int64)
    v = np.array([1.0, 2.0, 3.5, -1.0, 0.5], np.float32)
    out = COOTensor(Tensor(idx), Tensor(v), SHAPE).coalesce()
    np.testing.assert_array_equal(out.indices.asnumpy(), [[0, 1], [1, 0], [2, 3]])
    np.testing.assert_allclose(out.values.asnumpy(), [2.5, -1.0, 4.5])
    g = ops.grad(lambda t: (COOTensor(Tensor(idx), t, SHAPE).coalesce().values * Tensor(
        np.array([1.0, 2.0, 3.0], np.float32))).sum())(Tensor(v)).asnumpy()
    np.testing.assert_allclose(g, [3.0, 1.0, 3.0, 2.0, 1.0])


def test_bad_inputs_say_what_and_where():
    csr = _csr(INDPTR, COLS, VALS)
    with pytest.raises(ValueError, match="2-D inputs"):
        ops.csr_mv(csr, Tensor(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="axis must be 1"):
        ops.csr_reduce_sum(csr, 0)
    with pytest.raises(TypeError, match="expects a COOTensor, got CSRTensor"):
        ops.coo_abs(csr)
    with pytest.raises(ValueError, match="differ outside concat_dim"):
        a = COOTensor(Tensor(np.array([[0, 1]], np.int64)), Tensor(np.ones(1, np.float32)), (2, 2))
        ops.coo_concat((a, COOTensor(Tensor(np.array([[0, 1]], np.int64)), Tensor(np.ones(1, np.float32)),
                                     (3, 3))), 0)
    with pytest.raises(ValueError, match="shapes differ"):
        ops.csr_add(csr, CSRTensor(np.array([0, 0, 0], np.int32), np.zeros(0, np.int32),
                                   np.zeros(0, np.float32), (2, 4)), 1.0, 1.0)
    with pytest.raises(TypeError, match="integer tensor"):
        COOTensor(Tensor(np.zeros((1, 2), np.float32)), Tensor(np.ones(1, np.float32)), (2, 2))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_print_prints_what_print_primitive_prints(mode, capfd):
    """``ops.print_`` is ``ops.Print()`` as a function (its output format is checked against
    MindSpore by test_ms_print); the two print the same lines in both modes."""
    class Net(ms.nn.Cell):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def construct(self, x):
            self.fn("value:", x, 3)
            return x + 1

    x = Tensor(np.array([[1.5, -2.0]], np.float32))
    ms.set_context(mode=mode)
    try:
        Net(ops.print_)(x)
        first = capfd.readouterr().out
        Net(ops.Print())(x)
        second = capfd.readouterr().out
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert first == second and "value:" in first and "1.5" in first


def test_get_grad_refuses_what_it_cannot_find():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    res = ms.grad(lambda t: (t * t).sum(), grad_position=0, return_ids=True)(x)
    np.testing.assert_array_equal(ops.get_grad((res,), 0).asnumpy(), [2.0, 4.0])
    with pytest.raises(ValueError, match="no gradient of 1"):
        ops.get_grad((res,), 1)
    with pytest.raises(TypeError, match="must be the tuple"):
        ops.get_grad(x, 0)
    with pytest.raises(TypeError, match="position \\(int\\) or a Parameter"):
        ops.get_grad((res,), "w")
