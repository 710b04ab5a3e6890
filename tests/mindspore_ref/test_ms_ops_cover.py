"""The ``ops`` functions and Tensor methods of :mod:`tests.mindspore_ref.ms_ops_cover_programs`
in both modes (values, dtypes, shapes, gradients): against MindSpore 2.10's recorded
answers (``ms_ops_cover_expected.json``, CI), our two modes against each other, and
MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then NumPy references for the
same names, and for what MindSpore 2.10 cannot answer on CPU (its ``UNTESTABLE``: the
in-place Tensor methods' kernels are unregistered, ``all_reduce`` kills a process that did
not ``init()`` communication)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.ms_ops_cover_programs import PROGRAMS, UNTESTABLE
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

# float32 rounding: MindSpore's own kernels (erf, gelu, pooling sums) differ in the last bits
TOL = {"rtol": 2e-5, "atol": 2e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_ops_cover_expected.json", per_mode=True,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

R = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
H = np.array([[-2.5, 1.5, -0.5], [0.5, 1.5, 2.7]], np.float32)
I = np.array([[-7, -2, 0], [3, 5, 12]], np.int32)  # noqa: E741
J = np.array([[3, 5, 2], [-2, 3, 7]], np.int32)
B = np.array([[True, False, True], [False, False, True]])




# -- NumPy references for the recorded names ----------------------------------------------
@pytest.mark.parametrize("op,ref", [
    (ops.floor_div, np.floor_divide), (ops.floordiv, np.floor_divide),
    (ops.tensor_floordiv, np.floor_divide), (ops.floor_mod, np.mod), (ops.floormod, np.mod),
    (ops.tensor_mod, np.mod), (ops.tensor_ge, np.greater_equal), (ops.tensor_gt, np.greater),
    (ops.tensor_le, np.less_equal), (ops.tensor_lt, np.less), (ops.not_equal, np.not_equal),
    (ops.tensor_add, np.add), (ops.tensor_sub, np.subtract), (ops.tensor_mul, np.multiply),
])
def test_binary_aliases_follow_numpy(op, ref):
    for x, y in ((R, H), (I, J)):
        for got in both_modes(op, x, y):
            np.testing.assert_allclose(got, ref(x, y), rtol=1e-6)
            assert got.dtype == ref(x, y).dtype


def test_trig_follow_numpy():
    u = np.array([-0.9, -0.2, 0.0, 0.6], np.float32)
    for op, ref, x in ((ops.arcsin, np.arcsin, u), (ops.arctanh, np.arctanh, u),
                       (ops.arcsinh, np.arcsinh, R), (ops.arctan, np.arctan, R),
                       (ops.arccosh, np.arccosh, np.abs(R) + 1), (ops.cos, np.cos, R),
                       (ops.sin, np.sin, R)):
        for got in both_modes(op, x):
            np.testing.assert_allclose(got, ref(x), rtol=1e-5, atol=1e-6)


def test_reduce_primitives_keep_dims():
    m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for op, ref in ((ops.ReduceMax(True), np.max), (ops.ReduceMin(True), np.min),
                    (ops.ReduceMean(True), np.mean)):
        np.testing.assert_allclose(op(Tensor(m), (0, 2)).asnumpy(), ref(m, (0, 2), keepdims=True))
    np.testing.assert_allclose(ops.reduce_mean(Tensor(m), 2).asnumpy(), m.mean(2))


def test_batch_norm_training_updates_running_statistics():
    """``ops.batch_norm(training=True)`` updates plain Tensors too (MindSpore 2.10 PyNative):
    ``(1 - momentum) * running + momentum * batch``, the batch variance unbiased."""
    x = np.random.default_rng(0).normal(size=(4, 3, 2, 2)).astype(np.float32)
    mean, var = Tensor(np.full(3, 0.5, np.float32)), Tensor(np.full(3, 2.0, np.float32))
    y = ops.batch_norm(Tensor(x), mean, var, Tensor(np.ones(3, np.float32)),
                       Tensor(np.zeros(3, np.float32)), True, 0.3)
    axes = (0, 2, 3)
    np.testing.assert_allclose(mean.asnumpy(), 0.7 * 0.5 + 0.3 * x.mean(axes), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), 0.7 * 2.0 + 0.3 * x.var(axes, ddof=1), rtol=1e-5)
    want = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_dropout_keeps_one_minus_p_on_average():
    ms.set_seed(7)
    x = Tensor(np.ones((200, 200), np.float32))
    kept = ops.dropout(x, 0.3).asnumpy()
    assert abs((kept != 0).mean() - 0.7) < 0.02
    np.testing.assert_allclose(kept[kept != 0], 1 / 0.7, rtol=1e-6)


# -- what MindSpore 2.10 cannot answer on CPU: NumPy -----------------------------------------
INPLACE = [
    ("clamp_", (-1.0, 2.0), lambda a: np.clip(a, -1.0, 2.0), R),
    ("exp_", (), np.exp, R), ("fill_", (2.5,), lambda a: np.full_like(a, 2.5), R),
    ("floor_", (), np.floor, H), ("log_", (), np.log, np.abs(R) + 0.1),
    ("sigmoid_", (), lambda a: 1 / (1 + np.exp(-a)), R), ("sign_", (), np.sign, H),
    ("tanh_", (), np.tanh, R), ("zero_", (), np.zeros_like, I),
    ("masked_fill_", (Tensor(B), -4.0), lambda a: np.where(B, -4.0, a).astype(a.dtype), R),
]


def test_untestable_names_are_the_inplace_methods_and_all_reduce():
    assert set(UNTESTABLE) == {f"Tensor:{n}" for n, *_ in INPLACE if n != "exp_"} | {"ops:all_reduce"}


@pytest.mark.parametrize("name,args,ref,array", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_methods_change_the_tensor(name, args, ref, array):
    """Each returns the tensor itself, changed (MindSpore 2.10's ``exp_`` on CPU returns the
    result but leaves the tensor as it was; its documented contract is in place)."""
    x = Tensor(array)
    out = getattr(x, name)(*args)
    assert out is x
    np.testing.assert_allclose(x.asnumpy(), ref(array), rtol=1e-6, atol=1e-7)
    assert x.dtype == ms.dtype.float32 if array.dtype == np.float32 else x.dtype == ms.dtype.int32


@pytest.mark.parametrize("name,args,ref,array", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_methods_in_graph_mode(name, args, ref, array):
    """Inside a compiled Cell, on a tensor the Cell computed: the returned value."""

    class Net(nn.Cell):
        def construct(self, x):
            y = x + 0
            getattr(y, name)(*args)
            return y

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = Net()(Tensor(array)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, ref(array), rtol=1e-6, atol=1e-7)


def test_all_reduce_on_one_process_is_the_identity():
    """One rank: the sum (and max, min) over the group is the tensor itself."""
    for op in ("sum", "max", "min"):
        out = ops.all_reduce(Tensor(R), op)
        out = out[0] if isinstance(out, tuple) else out
        np.testing.assert_array_equal(out.asnumpy(), R)
