"""The ``nn`` cells, optimizers and helpers of :mod:`tests.mindspore_ref.ms_nn_cells_programs`
(transposed and 3-d convolutions, CellDict, the second batch of optimizers, 3-d pooling and
normalization, ...) in both modes: against MindSpore 2.10's recorded answers
(``ms_nn_cells_expected.json``, CI), our two modes against each other, and MindSpore itself
where ``MINDSPORE_PYTHON`` names its venv. Then checks against NumPy that need no recording."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, nn
from tests.mindspore_ref.ms_nn_cells_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

TOL = {"rtol": 2e-5, "atol": 2e-5}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_nn_cells_expected.json", per_mode=True,
                    tolerance={"*": TOL}, slow_graph=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- independent of the recording ---------------------------------------------------------
def _conv3d_numpy(x: np.ndarray, w: np.ndarray, stride: tuple[int, int, int]) -> np.ndarray:
    """A direct 'valid' 3-d cross-correlation (loops over the kernel)."""
    n, _, d, h, wd = x.shape
    o, _, kd, kh, kw = w.shape
    sd, sh, sw = stride
    od, oh, ow = (d - kd) // sd + 1, (h - kh) // sh + 1, (wd - kw) // sw + 1
    out = np.zeros((n, o, od, oh, ow))
    for a in range(kd):
        for b in range(kh):
            for c in range(kw):
                patch = x[:, :, a:a + sd * (od - 1) + 1:sd, b:b + sh * (oh - 1) + 1:sh,
                          c:c + sw * (ow - 1) + 1:sw]
                out += np.einsum("ncdhw,oc->nodhw", patch, w[:, :, a, b, c])
    return out


def test_conv3d_matches_a_direct_sum():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 5, 4, 6)).astype(np.float32)
    net = nn.Conv3d(3, 4, (2, 3, 2), stride=(2, 1, 2), pad_mode="valid")
    got = net(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _conv3d_numpy(x, net.weight.asnumpy(), (2, 1, 2)),
                               rtol=1e-5, atol=1e-5)


def test_conv3d_transpose_is_the_adjoint_of_conv3d():
    """<conv(x), y> == <x, conv_transpose(y)> with the same weight ('valid', stride 2)."""
    rng = np.random.default_rng(1)
    conv = nn.Conv3d(3, 2, 3, stride=2, pad_mode="valid")
    back = nn.Conv3dTranspose(2, 3, 3, stride=2, pad_mode="valid")
    back.weight.set_data(conv.weight.value())
    x = rng.normal(size=(1, 3, 7, 7, 7)).astype(np.float32)
    y = rng.normal(size=(1, 2, 3, 3, 3)).astype(np.float32)
    lhs = float((conv(Tensor(x)).asnumpy() * y).sum())
    rhs = float((x * back(Tensor(y)).asnumpy()).sum())
    assert lhs == pytest.approx(rhs, rel=1e-4)


@pytest.mark.parametrize("bad", [dict(pad_mode="pad", padding=(1, 2)),
                                 dict(padding=1), dict(pad_mode="full")])
def test_conv3d_refuses_bad_padding_in_one_line(bad):
    with pytest.raises(ValueError, match="Conv3d: (padding|pad_mode)") as info:
        nn.Conv3d(2, 2, 3, **bad)
    assert "\n" not in str(info.value)


def test_psnr_in_pynative_follows_its_formula():
    """MindSpore 2.10 cannot run PSNR in PyNative on CPU, so the recording is graph mode's:
    here PyNative against 10 log10(max^2 / mse), floats and uint8 (scaled by 255)."""
    rng = np.random.default_rng(2)
    a, b = rng.random((2, 3, 4, 5)).astype(np.float32), rng.random((2, 3, 4, 5)).astype(np.float32)
    mse = ((a - b) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(nn.PSNR(2.0)(Tensor(a), Tensor(b)).asnumpy(),
                               10 * np.log10(4.0 / mse), rtol=1e-5)
    ia, ib = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    mse = ((ia / 255.0 - ib / 255.0) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(nn.PSNR(255)(Tensor(ia), Tensor(ib)).asnumpy(),
                               10 * np.log10(1.0 / mse), rtol=1e-4)


def test_embedding_lookup_gradient_adds_up_rows():
    """d sum(w * lookup(ids)) / d table: each id's row gets the sum of its weights (an id
    outside the table: nothing), in both modes (MindSpore's own is a sparse row gradient)."""
    import framework as ms
    from tests.mindspore_ref.reference import both_modes

    net = nn.EmbeddingLookup(6, 3)
    ids = np.array([1, 4, 1, -1, 6], np.int32)
    w = np.arange(15, dtype=np.float32).reshape(5, 3)
    grad = ms.grad(lambda t: (net(Tensor(ids)) * Tensor(w)).sum(), grad_position=None,
                   weights=[net.embedding_table])
    for got in both_modes(lambda t: grad(t)[0], np.zeros(1, np.float32)):
        want = np.zeros((6, 3), np.float32)
        for row, i in zip(w, ids):
            if 0 <= i < 6:
                want[i] += row
        np.testing.assert_allclose(got, want)


def test_embedding_lookup_max_norm_clips_each_row():
    net = nn.EmbeddingLookup(8, 4, max_norm=0.3)
    table = np.sin(np.arange(32, dtype=np.float32)).reshape(8, 4) * 0.3
    net.embedding_table.set_data(Tensor(table))
    ids = np.array([[0, 3, 5], [2, 2, 7]], np.int32)
    rows = table[ids]
    norm = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(net(Tensor(ids)).asnumpy(), rows * 0.3 / np.maximum(norm, 0.3),
                               rtol=1e-5)


def _ctc_brute_force(lp: np.ndarray, target: list[int], blank: int) -> float:
    """-log of the summed probability of every frame labelling that collapses to target."""
    import itertools

    total = 0.0
    for path in itertools.product(range(lp.shape[1]), repeat=lp.shape[0]):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
        if collapsed == target:
            total += float(np.exp(sum(lp[t, c] for t, c in enumerate(path))))
    return -np.log(total) if total > 0 else np.inf


def test_ctc_loss_is_the_sum_over_alignments():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 2, 3))
    lp = (x - np.log(np.exp(x).sum(-1, keepdims=True))).astype(np.float32)
    targets = np.array([[1, 1], [2, 0]], np.int32)
    loss = nn.CTCLoss(reduction="none")(Tensor(lp), Tensor(targets), Tensor(np.array([5, 4], np.int32)),
                                        Tensor(np.array([2, 1], np.int32))).asnumpy()
    want = [_ctc_brute_force(lp[:5, 0], [1, 1], 0), _ctc_brute_force(lp[:4, 1], [2], 0)]
    np.testing.assert_allclose(loss, want, rtol=1e-5)


def test_ctc_zero_infinity_zeros_an_impossible_loss():
    """As documented (MindSpore 2.10's CPU kernel returns inf here but zeros the gradient)."""
    lp = np.log(np.full((2, 1, 3), 1 / 3, np.float32))
    args = (Tensor(lp), Tensor(np.array([[1, 1]], np.int32)), Tensor(np.array([2], np.int32)),
            Tensor(np.array([2], np.int32)))
    assert np.isinf(nn.CTCLoss(reduction="none")(*args).asnumpy()[0])
    assert nn.CTCLoss(reduction="none", zero_infinity=True)(*args).asnumpy()[0] == 0.0


def test_ssim_in_pynative_matches_graph_mode():
    """The recording is graph mode's (MindSpore 2.10 cannot run SSIM in PyNative on CPU)."""
    from tests.mindspore_ref.reference import both_modes

    rng = np.random.default_rng(4)
    a = rng.random((1, 2, 12, 12)).astype(np.float32)
    b = np.clip(a + rng.normal(0, 0.1, a.shape), 0, 1).astype(np.float32)
    net = nn.SSIM(filter_size=5)
    eager, graph = both_modes(net, a, b)
    np.testing.assert_allclose(eager, graph, rtol=1e-5)
    assert nn.SSIM(filter_size=5)(Tensor(a), Tensor(a)).asnumpy() == pytest.approx(1.0, abs=1e-6)


def test_roc_of_class_scores_is_one_curve_per_class():
    """(N, C) scores: class c's curve is the binary curve of column c with c positive. Not
    recorded: MindSpore 2.10 reshapes the (N, C) scores to (C, N) first, mixing samples."""
    scores = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4], [0.5, 0.1, 0.4],
                       [0.2, 0.5, 0.3]], np.float32)
    labels = np.array([0, 1, 2, 2, 1], np.int32)
    roc = nn.ROC(class_num=3)
    roc.update(scores, labels)
    fpr, tpr, thresholds = roc.eval()
    for c in range(3):
        binary = nn.ROC(pos_label=c)
        binary.update(scores[:, c], labels)
        for got, want in zip((fpr[c], tpr[c], thresholds[c]), binary.eval()):
            np.testing.assert_allclose(got, want)


def test_fractional_max_pool_gradient_goes_to_the_maxima():
    """Each window's output gradient lands on its maximum (the index it returns), summed
    where windows share one; MindSpore 2.10 cannot differentiate it on CPU."""
    import framework as ms
    from tests.mindspore_ref.reference import both_modes

    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3, 7, 6)).astype(np.float32)
    samples = Tensor(rng.random((2, 3, 2)).astype(np.float32))
    pool = nn.FractionalMaxPool2d(2, output_size=(4, 3), return_indices=True, _random_samples=samples)
    _, idx = pool(Tensor(x))
    w = rng.normal(size=(2, 3, 4, 3)).astype(np.float32)
    plain = nn.FractionalMaxPool2d(2, output_size=(4, 3), _random_samples=samples)
    grad = ms.grad(lambda t: (plain(t) * Tensor(w)).sum())
    want = np.zeros((2, 3, 42), np.float32)
    flat = idx.asnumpy().reshape(2, 3, -1)
    for b in range(2):
        for c in range(3):
            np.add.at(want[b, c], flat[b, c], w[b, c].ravel())
    for got in both_modes(grad, x):
        np.testing.assert_allclose(got, want.reshape(x.shape), rtol=1e-6)
