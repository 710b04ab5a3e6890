"""Random creation functions draw fresh numbers at each call of a compiled function.

MindSpore 2.10 (CPU, checked with its ``ops.rand``/``ops.uniform``/``ops.randint``/
``ops.multinomial``/``ops.bernoulli`` under ``@ms.jit``; its ``mint`` random kernels are
Ascend-only) gives new values per call, and after the same ``ms.set_seed`` the same program
gives the same sequence. Here, besides, the two modes consume the generator alike, so the
eager calls are the reference for the compiled ones.
"""

import numpy as np
import pytest

import framework as ms
from framework import Tensor, mint, nn, ops

HALF = Tensor(np.full((64,), 0.5, np.float32))
WEIGHTS = Tensor(np.ones(6, np.float32))

DRAWS = {
    "rand": lambda: mint.rand(2, 3),
    "randn": lambda: mint.randn(4),
    "randint": lambda: mint.randint(3, 50, (5,)),
    "randint_high": lambda: mint.randint(50, (5,)),
    "randperm": lambda: mint.randperm(20),
    "normal_numbers": lambda: mint.normal(1.0, 2.0, (4,)),
    "normal_tensors": lambda: mint.normal(HALF, 2.0),
    "bernoulli": lambda: mint.bernoulli(HALF),
    "bernoulli_p": lambda: mint.bernoulli(HALF, p=0.3),
    "rand_like": lambda: mint.rand_like(HALF),
    "randn_like": lambda: mint.randn_like(HALF),
    "randint_like": lambda: mint.randint_like(HALF, 0, 100),
    "mint_multinomial": lambda: mint.multinomial(WEIGHTS, 3),
    "ops_multinomial": lambda: ops.multinomial(WEIGHTS, 4, True),
}


def _calls(fn, n=3):
    return [fn().asnumpy() for _ in range(n)]


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_compiled_draws_change_per_call(name):
    compiled = ms.jit(DRAWS[name])
    first, *rest = _calls(compiled)
    assert any(not np.array_equal(first, r) for r in rest), f"{name}: same numbers each call"


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_compiled_sequence_is_seeded_and_matches_eager(name):
    ms.set_seed(11)
    eager = _calls(DRAWS[name])
    ms.set_seed(11)
    compiled_fn = ms.jit(DRAWS[name])
    graph = _calls(compiled_fn)
    ms.set_seed(11)
    again = _calls(compiled_fn)
    for e, g, a in zip(eager, graph, again, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, a)  # same seed, same program: same sequence
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)  # both modes alike


def test_graph_mode_cell_draws_per_call():
    class Noisy(nn.Cell):
        def construct(self, x):
            return x + mint.randn_like(x), mint.randint(0, 1000, (8,))

    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Noisy(), Tensor(np.zeros((8,), np.float32))
    a, b = net(x), net(x)
    assert not np.array_equal(a[0].asnumpy(), b[0].asnumpy())
    assert not np.array_equal(a[1].asnumpy(), b[1].asnumpy())


def test_values_and_dtypes_as_mindspore():
    @ms.jit
    def draws(x):
        return (mint.rand(1000), mint.randint(-3, 4, (1000,)), mint.randperm(30),
                mint.bernoulli(x, p=0.0), mint.bernoulli(x, p=1.0), mint.randn(2000),
                mint.rand(3, dtype=ms.float64))

    u, k, perm, zeros, ones, z, u64 = (t.asnumpy() for t in draws(HALF))
    assert u.dtype == np.float32 and 0.0 <= u.min() and u.max() < 1.0 and 0.4 < u.mean() < 0.6
    assert k.dtype == np.int64 and set(np.unique(k)) == set(range(-3, 4))
    assert perm.dtype == np.int64 and np.array_equal(np.sort(perm), np.arange(30))
    assert zeros.dtype == np.float32 and not zeros.any() and ones.all()
    assert abs(z.mean()) < 0.15 and 0.85 < z.std() < 1.15
    assert u64.dtype == np.float64


def test_randint_bad_range_is_a_clear_error():
    with pytest.raises(ValueError, match="randint"):
        mint.randint(5, 5, (2,))
