"""Initializers a user defines as MindSpore's model zoo does: a subclass of ``Initializer``
with ``_initialize(self, arr)`` filling ``arr`` in place (the target dtype), used by
``initializer(...)`` and by layers' ``weight_init``; against MindSpore where installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import framework as ms
from framework import nn
from framework.common import initializer as init
from tests.mindspore_ref.reference import Differential, assert_same, needs_mindspore


class Ramp(init.Initializer):
    def __init__(self, start=1.0):
        super().__init__(start=start)
        self.start = start
        self.seen = []

    def _initialize(self, arr):
        self.seen.append((arr.dtype, arr.shape))
        arr[:] = self.start + np.arange(arr.size).reshape(arr.shape)


class KaimingUniformLike(init.Initializer):
    """The model zoo's pattern: fan from the shape, the helpers, ``_assignment``."""

    def __init__(self, a=None, mode="fan_in"):
        super().__init__()
        self.a, self.mode = math.sqrt(5) if a is None else a, mode

    def _initialize(self, arr):
        fan = init._calculate_correct_fan(arr.shape, self.mode)
        bound = init._calculate_gain("leaky_relu", self.a) * math.sqrt(3.0 / fan)
        init._assignment(arr, np.random.default_rng(0).uniform(-bound, bound, arr.shape))


@pytest.mark.parametrize("dtype, np_dtype", [(ms.float32, np.float32), (ms.float16, np.float16),
                                             (ms.int32, np.int32)])
def test_initialize_fills_an_array_of_the_target_dtype(dtype, np_dtype):
    ramp = Ramp(0.5)
    t = init.initializer(ramp, (2, 3), dtype)
    assert ramp.seen == [(np.dtype(np_dtype), (2, 3))]
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.asnumpy(), (0.5 + np.arange(6).reshape(2, 3)).astype(np_dtype))


def test_layers_take_it_as_weight_init_and_call_fills_in_place():
    dense = nn.Dense(2, 2, weight_init=Ramp(1.0))
    np.testing.assert_array_equal(dense.weight.asnumpy(), [[1.0, 2.0], [3.0, 4.0]])
    arr = np.zeros((2, 2), np.float32)
    assert Ramp(3.0)(arr) is None
    np.testing.assert_array_equal(arr, [[3.0, 4.0], [5.0, 6.0]])
    built_in = np.zeros((4, 3))
    ms.set_seed(1)
    init.HeUniform()(built_in)
    ms.set_seed(1)
    np.testing.assert_array_equal(built_in, init.initializer("he_uniform", (4, 3), ms.float64).asnumpy())


def test_kaiming_uniform_pattern_bounds():
    weight = init.initializer(KaimingUniformLike(), (8, 4, 3, 3), ms.float32).asnumpy()
    fan_in = 4 * 3 * 3
    bound = math.sqrt(2.0 / (1 + 5)) * math.sqrt(3.0 / fan_in)
    expected = np.random.default_rng(0).uniform(-bound, bound, weight.shape).astype(np.float32)
    np.testing.assert_array_equal(weight, expected)
    assert init._calculate_fan_in_and_fan_out((8, 4, 3, 3)) == (36, 72)


def test_a_subclass_defining_nothing_is_refused():
    class Nothing(init.Initializer):
        pass

    with pytest.raises(NotImplementedError, match="_initialize"):
        init.initializer(Nothing(), (2,), ms.float32)


PROGRAMS = {"custom_initializer": '''
from mindspore.common import initializer as init


class Ramp(init.Initializer):
    def __init__(self, start=1.0):
        super().__init__(start=start)
        self.start = start

    def _initialize(self, arr):
        arr[:] = self.start + np.arange(arr.size).reshape(arr.shape)


def main():
    dense = nn.Dense(2, 2, weight_init=Ramp(1.0))
    return (init.initializer(Ramp(0.5), (2, 3), ms.float16), init.initializer(Ramp(0.5), (3,), ms.int32),
            dense.weight, init._calculate_fan_in_and_fan_out((8, 4, 3, 3)))
'''}


def _program(engine: str) -> dict[str, str]:
    """The program importing the initializer module of ``engine``."""
    return {k: v.replace("mindspore.common", f"{engine}.common") for k, v in PROGRAMS.items()}


OURS, THEIRS = Differential(_program("framework")), Differential(_program("mindspore"))


@needs_mindspore
def test_against_mindspore():
    theirs = THEIRS.mindspore("pynative", "custom_initializer")
    assert_same(OURS.ours("pynative", "custom_initializer"), theirs)
