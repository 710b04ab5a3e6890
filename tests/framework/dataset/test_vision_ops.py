"""``framework.dataset.vision``/``transforms`` against NumPy references, one image and many."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework.dataset import transforms, vision


def _images(n=5, h=6, w=7, c=None, seed=0):
    shape = (n, h, w) if c is None else (n, h, w, c)
    return np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)


def _bilinear_reference(img: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Half-pixel-centre bilinear interpolation with edge clamping, written pixel by pixel."""
    h, w = img.shape[:2]
    out = np.zeros((out_h, out_w) + img.shape[2:], np.float64)
    for i in range(out_h):
        sy = min(max((i + 0.5) * h / out_h - 0.5, 0), h - 1)
        y0, fy = int(np.floor(sy)), sy - np.floor(sy)
        y1 = min(y0 + 1, h - 1)
        for j in range(out_w):
            sx = min(max((j + 0.5) * w / out_w - 0.5, 0), w - 1)
            x0, fx = int(np.floor(sx)), sx - np.floor(sx)
            x1 = min(x0 + 1, w - 1)
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bottom = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bottom * fy
    return out


@pytest.mark.parametrize("c", [None, 1, 3])
def test_resize_matches_a_pixel_loop(c):
    x = _images(3, 6, 7, c)
    out = vision.Resize((9, 4)).apply_batch(x)
    assert out.shape == (3, 9, 4) + (() if c is None else (c,)) and out.dtype == np.uint8
    for k in range(3):
        ref = _bilinear_reference(x[k].astype(np.float64), 9, 4)
        np.testing.assert_allclose(out[k], np.clip(np.rint(ref), 0, 255), atol=1)
    short = vision.Resize(3)(x[0])  # an int is the shorter side, aspect kept
    assert short.shape[:2] == (3, int(7 * 3 / 6))


def test_rescale_normalize_hwc2chw_typecast_onehot():
    x = _images(4, 5, 5, 3)
    r = vision.Rescale(1 / 255, -0.5).apply_batch(x)
    np.testing.assert_allclose(r, x.astype(np.float64) / 255 - 0.5, rtol=1e-6, atol=1e-6)
    assert r.dtype == np.float32
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 2.0]
    n = vision.Normalize(mean, std).apply_batch(r)
    np.testing.assert_allclose(n, (r - np.array(mean)) / np.array(std), rtol=1e-5, atol=1e-5)
    chw = vision.HWC2CHW().apply_batch(n)
    np.testing.assert_array_equal(chw, n.transpose(0, 3, 1, 2))
    n_chw = vision.Normalize(mean, std, is_hwc=False).apply_batch(r.transpose(0, 3, 1, 2))
    np.testing.assert_allclose(n_chw, chw, rtol=1e-6)
    assert vision.HWC2CHW()(np.zeros((4, 6))).shape == (1, 4, 6)
    t = vision.ToTensor()(x[0])
    np.testing.assert_allclose(t, x[0].transpose(2, 0, 1) / 255, rtol=1e-6)
    labels = np.array([3, 0, 9], np.uint32)
    assert transforms.TypeCast(ms.int32)(labels).dtype == np.int32
    np.testing.assert_array_equal(transforms.OneHot(10).apply_batch(labels), np.eye(10)[labels])
    smooth = transforms.OneHot(4, smoothing_rate=0.2).apply_batch(np.array([1]))
    np.testing.assert_allclose(smooth, [[0.05, 0.85, 0.05, 0.05]], rtol=1e-6)


def test_pad_and_center_crop_against_numpy():
    x = _images(2, 5, 6, 1)
    p = vision.Pad((1, 2, 3, 4), fill_value=7).apply_batch(x)
    np.testing.assert_array_equal(p, np.pad(x, [(0, 0), (2, 4), (1, 3), (0, 0)], constant_values=7))
    e = vision.Pad(2, padding_mode=vision.Border.EDGE).apply_batch(x)
    np.testing.assert_array_equal(e, np.pad(x, [(0, 0), (2, 2), (2, 2), (0, 0)], mode="edge"))
    c = vision.CenterCrop((3, 2)).apply_batch(x)
    np.testing.assert_array_equal(c, x[:, 1:4, 2:4])


def test_random_crop_takes_windows_of_the_padded_image():
    x = _images(64, 6, 6, 1)
    out = vision.RandomCrop(6, padding=2).apply_batch(x, np.random.default_rng(0))
    padded = np.pad(x, [(0, 0), (2, 2), (2, 2), (0, 0)])
    offsets = set()
    for k in range(len(x)):
        found = [(i, j) for i in range(5) for j in range(5)
                 if np.array_equal(padded[k, i:i + 6, j:j + 6], out[k])]
        assert found, f"image {k} is not a 6x6 window of its padded image"
        offsets.add(found[0])
    assert len(offsets) > 5  # positions vary between images
    again = vision.RandomCrop(6, padding=2).apply_batch(x, np.random.default_rng(0))
    np.testing.assert_array_equal(out, again)  # the generator decides everything
    with pytest.raises(ValueError, match="larger than"):
        vision.RandomCrop(9).apply_batch(x)


def test_random_horizontal_flip_mirrors_some():
    x = _images(200, 4, 5, 3)
    out = vision.RandomHorizontalFlip(0.5).apply_batch(x, np.random.default_rng(1))
    flipped = np.array([np.array_equal(o, i[:, ::-1]) for o, i in zip(out, x, strict=True)])
    kept = np.array([np.array_equal(o, i) for o, i in zip(out, x, strict=True)])
    assert np.all(flipped | kept) and 60 < flipped.sum() < 140
    assert np.array_equal(vision.RandomHorizontalFlip(1.0)(x[0]), x[0][:, ::-1])


@pytest.mark.parametrize("op", [vision.Resize((8, 3)), vision.Rescale(0.5, 1), vision.Normalize([3.0], [2.0]),
                                vision.HWC2CHW(), vision.CenterCrop(3), vision.Pad([1, 2]),
                                transforms.TypeCast(np.float16), vision.ToTensor()])
def test_batch_equals_one_by_one(op):
    x = _images(4, 6, 5, 1)
    whole = op.apply_batch(x)
    for k in range(len(x)):
        np.testing.assert_array_equal(whole[k], op(x[k]))


def test_compose_and_bad_operations():
    x = _images(2, 4, 4, 1)
    both = transforms.Compose([vision.Rescale(2.0, 0), vision.HWC2CHW()])
    np.testing.assert_array_equal(both.apply_batch(x), (x * 2.0).transpose(0, 3, 1, 2))
    with pytest.raises(TypeError, match="parentheses"):
        transforms.Compose([vision.HWC2CHW])
    with pytest.raises(ValueError, match="std"):
        vision.Normalize([0.5], [0.0])
    with pytest.raises(TypeError, match="vision.Inter"):
        vision.Resize(4, "nearest")
