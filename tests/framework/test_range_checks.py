"""Out-of-range indices give the same verdict in both modes (issue 28, item 2): graph mode
used to clip them in the compiled code (the forward read one element, the gradient landed
on another) where PyNative stopped. Now the compiled function checks them and raises
PyNative's error, before it commits any Parameter update."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops


class Lookup(nn.Cell):
    def __init__(self):
        super().__init__()
        ms.set_seed(0)
        self.emb = nn.Embedding(10, 3)
        self.table = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))

    def construct(self, ids, rows):
        return self.emb(ids).sum() + ops.gather(self.table, rows, 0).sum() + self.table[rows[0]].sum()


CASES = [([[1, 2], [3, 12]], [0, 1], "Gather: index 12 is out of bounds for axis 0 of size 10"),
         ([[1, -11], [3, 4]], [0, 1], "Gather: index -11 is out of bounds for axis 0 of size 10"),
         ([[1, 2], [3, 4]], [0, 5], "Gather: index 5 is out of bounds for axis 0 of size 4"),
         ([[1, 2], [3, 4]], [-5, 1], "Gather: index -5 is out of bounds for axis 0 of size 4")]


@pytest.mark.parametrize("ids,rows,message", CASES)
def test_out_of_range_indices_raise_the_same_error_in_both_modes(ids, rows, message):
    net = Lookup()
    args = Tensor(np.array(ids, np.int32)), Tensor(np.array(rows, np.int32))
    errors = []
    for run in (net, ms.jit(net.construct)):
        with pytest.raises(IndexError) as info:
            run(*args)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and errors[0].startswith(message), errors
    assert "test_range_checks.py" in errors[0]  # the user's line


def test_a_compiled_train_step_with_a_bad_index_changes_nothing():
    net = Lookup()
    opt = nn.SGD(net.trainable_params(), 0.5)
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    @ms.jit
    def step(ids, rows):
        loss, grads = grad_fn(ids, rows)
        opt(grads)
        return loss

    rows = Tensor(np.array([0, 1], np.int32))
    before = net.emb.embedding_table.asnumpy().copy()
    step(Tensor(np.array([[1, 2], [3, 4]], np.int32)), rows)  # a good step moves the table
    moved = net.emb.embedding_table.asnumpy().copy()
    assert not np.array_equal(before, moved)
    with pytest.raises(IndexError, match="index 10 is out of bounds"):
        step(Tensor(np.array([[1, 2], [3, 10]], np.int32)), rows)
    np.testing.assert_array_equal(net.emb.embedding_table.asnumpy(), moved)
