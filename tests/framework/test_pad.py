"""``nn.Pad(paddings, mode)``: MindSpore's signature and modes, against NumPy's ``np.pad``
(values) and the mirrored entries' counts (gradients), in both modes; against MindSpore
where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.reference import MODES, Differential, assert_same, needs_mindspore

CASES = [((1, 2), (2, 1)), ((0, 0), (3, 0)), ((2, 2), (0, 3))]
PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("pad_mode", PAD_MODES)
@pytest.mark.parametrize("paddings", CASES)
def test_values_and_gradient_match_numpy(mode, pad_mode, paddings):
    ms.set_context(mode=mode)
    x = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5 - 1
    cell = nn.Pad(paddings, pad_mode)
    np_mode = "constant" if pad_mode == "CONSTANT" else pad_mode.lower()
    np.testing.assert_array_equal(cell(Tensor(x)).asnumpy(), np.pad(x, paddings, mode=np_mode))
    # d sum(w * pad(x)) / dx: each entry collects the weights of the places it was copied to
    w = np.random.default_rng(0).standard_normal(np.pad(x, paddings).shape).astype(np.float32)
    grad = ops.GradOperation(sens_param=True)(cell)(Tensor(x), Tensor(w)).asnumpy()
    index = np.pad(np.arange(x.size).reshape(x.shape), paddings, mode=np_mode)
    expected = np.zeros(x.size)
    inside = np.pad(np.ones(x.shape, bool), paddings, mode="constant") if pad_mode == "CONSTANT" \
        else np.ones(index.shape, bool)
    np.add.at(expected, index[inside], w[inside])
    np.testing.assert_allclose(grad, expected.reshape(x.shape), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_integer_input_and_four_dims(mode):
    ms.set_context(mode=mode)
    xi = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = nn.Pad(((1, 1), (1, 1)))(Tensor(xi))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.pad(xi, 1))
    x4 = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    pads = ((0, 0), (0, 0), (1, 1), (2, 2))
    np.testing.assert_array_equal(nn.Pad(pads, "REFLECT")(Tensor(x4)).asnumpy(),
                                  np.pad(x4, pads, mode="reflect"))


@pytest.mark.parametrize("build, error", [
    (lambda: nn.Pad(((1, 1), (1, 1)), "constant"), ValueError),  # upper case, as MindSpore
    (lambda: nn.Pad([[1, 0], [0, 0]]), TypeError),  # a tuple, as MindSpore
    (lambda: nn.Pad(((-1, 0), (0, 0))), ValueError),
])
def test_bad_arguments_are_refused(build, error):
    with pytest.raises(error, match="nn.Pad"):
        build()


@pytest.mark.parametrize("paddings, pad_mode", [
    (((1, 1),), "CONSTANT"),  # one pair per axis
    (((3, 0), (0, 0)), "REFLECT"),  # at most size - 1
    (((4, 0), (0, 0)), "SYMMETRIC"),  # at most size
])
def test_bad_paddings_for_the_input_are_refused(paddings, pad_mode):
    with pytest.raises(ValueError):
        nn.Pad(paddings, pad_mode)(Tensor(np.zeros((3, 4), np.float32)))


PROGRAMS = {f"{m.lower()}_{i}": f'''
def main():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) - 5)
    cell = nn.Pad({pads!r}, "{m}")
    w = Tensor(np.arange({np.pad(np.zeros((3, 4)), pads).size}, dtype=np.float32).reshape(
        {np.pad(np.zeros((3, 4)), pads).shape}))
    return cell(x), ops.GradOperation(sens_param=True)(cell)(x, w)
''' for m in PAD_MODES for i, pads in enumerate(CASES)}
PROGRAMS["edge_limits"] = '''
def main():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    return nn.Pad(((2, 2), (3, 3)), "REFLECT")(x), nn.Pad(((3, 3), (4, 4)), "SYMMETRIC")(x)
'''
RUN = Differential(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_modes_agree(name):
    assert_same(RUN.ours("graph", name), RUN.ours("pynative", name), f"{name}: graph vs pynative")


@needs_mindspore
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_against_mindspore(name, mode):
    assert_same(RUN.ours(mode, name), RUN.mindspore(mode, name), f"{name} ({mode} vs MindSpore)")
