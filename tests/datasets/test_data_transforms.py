"""Vectorized transforms against hand-computed values and a per-pixel reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from datasets import (
    HWC2CHW,
    Compose,
    Normalize,
    Rescale,
    Resize,
    TransformConfigError,
    TypeCast,
    build_transforms,
    lenet_transforms,
)


def bilinear_reference(image: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Per-pixel bilinear resize, half-pixel centres, clamped edges (OpenCV INTER_LINEAR)."""
    in_h, in_w = image.shape
    out = np.zeros((out_h, out_w))

    def tap(dst: int, n_in: int, n_out: int) -> tuple[int, int, float]:
        src = min(max((dst + 0.5) * n_in / n_out - 0.5, 0.0), n_in - 1.0)
        lo = math.floor(src)
        return lo, min(lo + 1, n_in - 1), src - lo

    for i in range(out_h):
        y0, y1, dy = tap(i, in_h, out_h)
        for j in range(out_w):
            x0, x1, dx = tap(j, in_w, out_w)
            top = image[y0, x0] * (1 - dx) + image[y0, x1] * dx
            bottom = image[y1, x0] * (1 - dx) + image[y1, x1] * dx
            out[i, j] = top * (1 - dy) + bottom * dy
    return out


def test_resize_known_values() -> None:
    # cv2.resize([[0, 100]], (4, 1)) == [[0, 25, 75, 100]]; 4 -> 2 averages pairs.
    up = Resize((1, 4), keep_dtype=False)(np.array([[[0, 100]]], dtype=np.uint8))
    np.testing.assert_allclose(up, [[[0, 25, 75, 100]]])
    down = Resize((1, 2), keep_dtype=False)(np.array([[[0.0, 10.0, 20.0, 40.0]]]))
    np.testing.assert_allclose(down, [[[5.0, 30.0]]])


@pytest.mark.parametrize("out_hw", [(32, 32), (7, 5), (3, 9), (5, 6)])
def test_resize_matches_per_pixel_reference(out_hw: tuple[int, int]) -> None:
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (3, 6, 5), dtype=np.uint8)
    got = Resize(out_hw, keep_dtype=False)(images)
    assert got.dtype == np.float32 and got.shape == (3, *out_hw)
    for n in range(3):
        ref = bilinear_reference(images[n].astype(np.float64), *out_hw)
        np.testing.assert_allclose(got[n], ref, atol=1e-3)
    rounded = Resize(out_hw)(images)  # uint8 in, uint8 out, like OpenCV / MindSpore
    assert rounded.dtype == np.uint8
    assert np.abs(rounded.astype(np.float64) - got).max() <= 0.5 + 1e-3


def test_resize_4d_and_shorter_side() -> None:
    rng = np.random.default_rng(2)
    x = rng.random((2, 3, 4, 8)).astype(np.float32)
    y = Resize(6)(x)  # shorter side -> 6, aspect ratio kept
    assert y.shape == (2, 3, 6, 12) and y.dtype == np.float32
    np.testing.assert_allclose(y[1, 2], bilinear_reference(x[1, 2].astype(np.float64), 6, 12),
                               atol=1e-5)
    same = Resize((4, 8))(x)
    np.testing.assert_array_equal(same, x)
    assert same is not x


def test_rescale_normalize() -> None:
    x = np.array([[[0, 51], [255, 128]]], dtype=np.uint8)
    r = Rescale(1 / 255, 0)(x)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, x / 255.0, rtol=1e-6)
    np.testing.assert_allclose(Rescale("1/255", "-0.5")(x), x / 255.0 - 0.5, rtol=1e-6, atol=1e-7)
    n = Normalize(0.1307, 0.3081)(r)
    np.testing.assert_allclose(n, (x / 255.0 - 0.1307) / 0.3081, rtol=1e-5, atol=1e-6)
    rgb = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
    out = Normalize([1.0, 2.0, 3.0], [0.5, 1.0, 2.0])(rgb)
    mean, std = np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(out, (rgb - mean[:, None, None]) / std[:, None, None], rtol=1e-6)
    with pytest.raises(ValueError, match="3 means for 1 channels"):
        Normalize([1, 2, 3], [1, 1, 1])(x)
    with pytest.raises(TransformConfigError, match="std must be non-zero"):
        Normalize(0, 0)


def test_hwc2chw_and_typecast() -> None:
    gray = np.zeros((5, 28, 28), np.uint8)
    assert HWC2CHW()(gray).shape == (5, 1, 28, 28)
    hwc = np.arange(2 * 4 * 3 * 3).reshape(2, 4, 3, 3)
    chw = HWC2CHW()(hwc)
    assert chw.shape == (2, 3, 4, 3) and chw.flags.c_contiguous
    assert chw[1, 2, 3, 1] == hwc[1, 3, 1, 2]
    assert TypeCast("float32")(gray).dtype == np.float32
    with pytest.raises(TransformConfigError, match="unknown dtype"):
        TypeCast("float33")


def test_lenet_pipeline_matches_stepwise_reference() -> None:
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (4, 28, 28), dtype=np.uint8)
    out = lenet_transforms()(images)
    assert out.shape == (4, 1, 32, 32) and out.dtype == np.float32
    ref = np.stack([np.rint(bilinear_reference(im.astype(np.float64), 32, 32)) for im in images])
    ref = (ref / 255.0 - 0.1307) / 0.3081
    # Rounding to uint8 after the resize may differ by one grey level at exact .5 ties.
    assert np.abs(out[:, 0] - ref).max() <= 1 / 255 / 0.3081 + 1e-5
    assert np.mean(np.abs(out[:, 0] - ref) < 1e-5) > 0.99


def test_compose_chunking_is_exact() -> None:
    rng = np.random.default_rng(4)
    images = rng.integers(0, 256, (1000, 28, 28), dtype=np.uint8)
    whole = Compose(lenet_transforms().transforms, chunk_size=10_000)(images)
    chunked = Compose(lenet_transforms().transforms, chunk_size=64)(images)
    np.testing.assert_array_equal(whole, chunked)
    assert chunked.flags.c_contiguous and chunked.shape == (1000, 1, 32, 32)


def test_build_transforms_forms() -> None:
    spec = [
        {"resize": 32},
        {"rescale": ["1/255", 0]},
        {"name": "normalize", "mean": 0.1307, "std": 0.3081},
        "HWC2CHW",
        {"TypeCast": {"dtype": "float32"}},
        Rescale(2.0),
    ]
    pipeline = build_transforms(spec)
    assert [type(t).__name__ for t in pipeline.transforms] == [
        "Resize", "Rescale", "Normalize", "HWC2CHW", "TypeCast", "Rescale"
    ]
    x = np.full((2, 28, 28), 255, np.uint8)
    np.testing.assert_allclose(pipeline(x), 2 * (1 - 0.1307) / 0.3081, rtol=1e-5)
    assert build_transforms(None)(x) is x
    assert repr(build_transforms("lenet")).startswith("Compose([Resize([32, 32]), Rescale(")


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ([{"blur": 3}], "unknown transform 'blur'; known: resize, rescale"),
        ("alexnet", "unknown transform preset 'alexnet'"),
        ([{"resize": 32, "rescale": 1}], "bad transform entry"),
        ([{"rescale": {"scale": 2}}], "transform 'rescale': bad arguments"),
        ([{"rescale": "one"}], "rescale: expected a number, got 'one'"),
        ([{"resize": "big"}], "resize: size must be an int"),
        ([{"resize": {"size": 8, "interpolation": "cubic"}}], "only bilinear"),
        (42, "transforms must be a list or a preset name"),
    ],
)
def test_build_transforms_errors(spec: object, match: str) -> None:
    with pytest.raises(TransformConfigError, match=match):
        build_transforms(spec)  # type: ignore[arg-type]
