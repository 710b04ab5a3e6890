"""``int``/``float``/``bool`` of a Tensor, as MindSpore 2.10 converts them: a tensor of
exactly one element, of any rank, gives that element (NumPy 2 itself refuses ``int()`` of a
1-d array); any other size is MindSpore's ValueError. References: the element read with
NumPy's ``item``."""

from __future__ import annotations

import re

import numpy as np
import pytest

from framework import Tensor


@pytest.mark.parametrize("array", [np.array([-1.7], np.float32), np.array([[2.5]], np.float64),
                                   np.array([[[7]]], np.int32), np.array([True]), np.array(-3, np.int64)])
def test_one_element_of_any_rank(array):
    value = array.reshape(()).item()
    x = Tensor(array)
    assert int(x) == int(value) and float(x) == float(value) and bool(x) == bool(value)
    assert isinstance(int(x), int) and isinstance(float(x), float)


@pytest.mark.parametrize("shape", [(2,), (0,), (1, 2)])
@pytest.mark.parametrize("convert", [int, float])
def test_other_sizes_are_refused(shape, convert):
    with pytest.raises(ValueError, match=rf"only one element tensors .*shape {re.escape(str(shape))}"):
        convert(Tensor(np.zeros(shape, np.float32)))
