"""``nn.Embedding``: lookup and its gradient (a scatter-add; repeated ids accumulate) against
NumPy's ``np.add.at`` in both modes and both formulations, and against PyTorch's
``F.embedding`` (subprocess with ``PYTHONPATH=$TORCH_PATH``, skipped when absent)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.torch_ref import needs_torch, reference

SCRIPT = Path(__file__).with_name("torch_seq_ops.py")

RNG = np.random.default_rng(5)
IDS = np.array([[1, 4, 1, 0], [4, 4, 2, 1], [6, 1, 0, 4]], np.int32)  # 1 and 4 repeat
DOUT = RNG.standard_normal(IDS.shape + (3,)).astype(np.float32)


def _table_grad(emb: nn.Embedding, ids, dout, compiled: bool):
    def loss(x):
        return ops.reduce_sum(ops.mul(emb(x), Tensor(dout)))

    fn = ms.value_and_grad(loss, None, emb.trainable_params())
    fn = ms.jit(fn) if compiled else fn
    value, (grad,) = fn(Tensor(ids))
    return value.asnumpy(), grad.asnumpy()


@pytest.mark.parametrize("use_one_hot", [False, True], ids=["gather", "one_hot"])
@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
def test_repeated_ids_accumulate_in_the_table_gradient(compiled, use_one_hot):
    ms.set_seed(1)
    emb = nn.Embedding(7, 3, use_one_hot=use_one_hot)
    table = emb.embedding_table.asnumpy().copy()
    out = emb(Tensor(IDS)).asnumpy()
    np.testing.assert_array_equal(out, table[IDS])
    value, grad = _table_grad(emb, IDS, DOUT, compiled)
    want = np.zeros_like(table)
    np.add.at(want, IDS, DOUT)
    assert np.abs(want[4]).sum() > 0 and np.abs(want[3]).sum() == 0  # id 3 never appears
    np.testing.assert_allclose(value, (table[IDS] * DOUT).sum(), rtol=1e-5)
    np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-6)


def test_defaults_init_and_padding_idx():
    ms.set_seed(2)
    emb = nn.Embedding(50, 40)
    table = emb.embedding_table.asnumpy()
    assert emb.embedding_table.name == "embedding_table" and table.dtype == np.float32
    assert abs(table.std() - 0.01) < 1e-3  # MindSpore's 'normal' initializer: sigma 0.01
    padded = nn.Embedding(5, 2, embedding_table="ones", padding_idx=2).embedding_table.asnumpy()
    np.testing.assert_array_equal(padded, np.array([[1, 1], [1, 1], [0, 0], [1, 1], [1, 1]]))
    # MindSpore masks nothing in the backward pass: the padding row gets its gradient
    _, grad = _table_grad(nn.Embedding(5, 2, padding_idx=2), np.array([2, 2, 1]),
                          np.ones((3, 2), np.float32), compiled=False)
    np.testing.assert_array_equal(grad[2], [2, 2])


def test_bad_arguments_are_refused_in_one_line():
    with pytest.raises(ValueError, match=r"padding_idx must be an int in \[0, 5\), got 5"):
        nn.Embedding(5, 2, padding_idx=5)
    with pytest.raises(TypeError, match="use_one_hot must be a bool"):
        nn.Embedding(5, 2, use_one_hot=1)
    with pytest.raises(TypeError, match="vocab_size must be a positive int"):
        nn.Embedding(5.0, 2)
    with pytest.raises(TypeError, match="ids must be an int32/int64 tensor"):
        nn.Embedding(5, 2)(Tensor(np.zeros(3, np.float32)))


def test_graph_gradient_is_a_scatter_add_not_a_one_hot_matmul(tmp_path):
    """nanoGPT's shapes (vocab 65 x 128, 12 x 64 ids): the compiled gradient is one
    IndexAdd (scatter_elements add), no OneHot or MatMul, and it runs fast."""
    ms.set_seed(3)
    emb = nn.Embedding(65, 128)
    ids = np.random.default_rng(0).integers(0, 65, (12, 64)).astype(np.int32)
    dout = np.random.default_rng(1).standard_normal((12, 64, 128)).astype(np.float32)

    def loss(x):
        return ops.reduce_sum(ops.mul(emb(x), Tensor(dout)))

    fn = ms.jit(ms.grad(loss, None, emb.trainable_params()), ir_dir=str(tmp_path))
    (grad,) = fn(Tensor(ids))
    want = np.zeros((65, 128), np.float32)
    np.add.at(want, ids, dout)
    np.testing.assert_allclose(grad.asnumpy(), want, rtol=1e-5, atol=1e-5)
    ir = (tmp_path / "02_opt.ir").read_text()
    assert "IndexAdd" in ir and "OneHot" not in ir and "MatMul" not in ir
    start = time.perf_counter()
    for _ in range(20):
        fn(Tensor(ids))
    per_call = (time.perf_counter() - start) / 20
    assert per_call < 0.02, f"compiled embedding gradient takes {per_call * 1e3:.1f} ms"


@needs_torch
@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
def test_matches_pytorch(tmp_path, compiled):
    ms.set_seed(4)
    emb = nn.Embedding(7, 3)
    table = emb.embedding_table.asnumpy()
    ref = reference(SCRIPT, tmp_path, kind="embedding", table=table, ids=IDS, dout=DOUT)
    out = (ms.jit(emb.construct) if compiled else emb)(Tensor(IDS)).asnumpy()
    np.testing.assert_allclose(out, ref["out"], rtol=1e-6)
    _, grad = _table_grad(emb, IDS, DOUT, compiled)
    np.testing.assert_allclose(grad, ref["grad"], rtol=1e-5, atol=1e-6)
