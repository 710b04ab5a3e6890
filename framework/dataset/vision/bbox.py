"""``mindspore.dataset.vision``'s operations on an image and its bounding boxes, two columns
``(image, bboxes)``: ``bboxes`` is ``N x 4+`` float32, each row ``(x, y, width, height, ...)``
in pixels (extra columns, e.g. labels, pass through). Boxes must lie inside the image.
In ``map`` they take ``input_columns=["image", "bbox"]``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..config import get_seed
from ..ops_base import DataOp
from .basic_ops import Border, Resize, pad_batch, padding_sides
from .geometry import size_pair
from .random_color import probability
from .random_geometry import RandomResize, RandomResizedCrop, crop_box
from .warp import Inter, resize_image


def _check(image: Any, bboxes: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(image)
    boxes = np.asarray(bboxes)
    if x.ndim not in (2, 3):
        raise RuntimeError(f"{what}: expected an H x W [x C] image, got shape {x.shape}")
    if boxes.ndim != 2 or boxes.shape[1] < 4 or boxes.dtype != np.float32:
        raise RuntimeError(
            f"{what}: bboxes must be an N x 4+ float32 array (x, y, width, height), "
            f"got {boxes.dtype} {boxes.shape}"
        )
    h, w = x.shape[:2]
    bad = (
        (boxes[:, 0] < 0)
        | (boxes[:, 1] < 0)
        | (boxes[:, 2] <= 0)
        | (boxes[:, 3] <= 0)
        | (boxes[:, 0] + boxes[:, 2] > w)
        | (boxes[:, 1] + boxes[:, 3] > h)
    )
    if bad.any():
        raise RuntimeError(
            f"{what}: bounding box {boxes[bad][0, :4].tolist()} is out of the image (height {h}, width {w})"
        )
    return x, boxes.copy()


class _BoxOp:
    """Base: ``op(image, bboxes) -> (image, bboxes)``, random ones seeded as the pipeline's."""

    random = False

    def __init__(self) -> None:
        self.rng = np.random.default_rng(get_seed())

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def __call__(self, image: Any, bboxes: Any) -> tuple[np.ndarray, np.ndarray]:
        return self.apply(*_check(image, bboxes, type(self).__name__))


class ResizeWithBBox(_BoxOp):
    """``ResizeWithBBox(size, interpolation=Inter.BILINEAR)``: ``Resize`` with the boxes scaled."""

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.BILINEAR) -> None:
        super().__init__()

        self.resize = Resize(size, interpolation)

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = self.resize.apply_batch(x[np.newaxis])[0]
        sy, sx = out.shape[0] / x.shape[0], out.shape[1] / x.shape[1]
        boxes[:, [0, 2]] *= sx
        boxes[:, [1, 3]] *= sy
        return out, boxes


class RandomResizeWithBBox(ResizeWithBBox):
    """``RandomResizeWithBBox(size)``: ``ResizeWithBBox`` with a random interpolation."""

    random = True

    def __init__(self, size: int | Sequence[int]) -> None:
        super().__init__(size)
        self.size = size

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.resize = Resize(self.size, RandomResize.MODES[int(self.rng.integers(4))])
        return super().apply(x, boxes)


class RandomHorizontalFlipWithBBox(_BoxOp):
    """``RandomHorizontalFlipWithBBox(prob=0.5)``."""

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__()
        self.prob = probability(prob, "RandomHorizontalFlipWithBBox")

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.rng.random() >= self.prob:
            return x.copy(), boxes
        boxes[:, 0] = x.shape[1] - boxes[:, 0] - boxes[:, 2]
        return np.ascontiguousarray(x[:, ::-1]), boxes


class RandomVerticalFlipWithBBox(_BoxOp):
    """``RandomVerticalFlipWithBBox(prob=0.5)``."""

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        super().__init__()
        self.prob = probability(prob, "RandomVerticalFlipWithBBox")

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.rng.random() >= self.prob:
            return x.copy(), boxes
        boxes[:, 1] = x.shape[0] - boxes[:, 1] - boxes[:, 3]
        return np.ascontiguousarray(x[::-1]), boxes


def crop_boxes(boxes: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    """The boxes clipped to a crop, in its coordinates; boxes left outside are dropped."""
    x0 = np.clip(boxes[:, 0] - left, 0, w)
    y0 = np.clip(boxes[:, 1] - top, 0, h)
    x1 = np.clip(boxes[:, 0] + boxes[:, 2] - left, 0, w)
    y1 = np.clip(boxes[:, 1] + boxes[:, 3] - top, 0, h)
    keep = (x1 > x0) & (y1 > y0)
    out = boxes[keep].copy()
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0[keep], y0[keep], (x1 - x0)[keep], (y1 - y0)[keep]
    return out


class RandomCropWithBBox(_BoxOp):
    """``RandomCropWithBBox(size, padding=None, pad_if_needed=False, fill_value=0,
    padding_mode=Border.CONSTANT)``: ``RandomCrop`` with the boxes shifted and clipped."""

    random = True

    def __init__(
        self,
        size: int | Sequence[int],
        padding: Any = None,
        pad_if_needed: bool = False,
        fill_value: Any = 0,
        padding_mode: Any = None,
    ) -> None:
        super().__init__()

        self.size = size_pair(size, "RandomCropWithBBox")
        self.padding = padding_sides(padding, "RandomCropWithBBox") if padding is not None else (0, 0, 0, 0)
        self.pad_if_needed, self.fill = bool(pad_if_needed), fill_value
        self.mode = Border(padding_mode) if padding_mode is not None else Border.CONSTANT

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:

        left, top = self.padding[0], self.padding[1]
        if any(self.padding):
            x = pad_batch(x[np.newaxis], self.padding, self.fill, self.mode)[0]
        ch, cw = self.size
        if self.pad_if_needed and (x.shape[0] < ch or x.shape[1] < cw):
            ph, pw = max(ch - x.shape[0], 0), max(cw - x.shape[1], 0)
            x = pad_batch(x[np.newaxis], (pw, ph, pw, ph), self.fill, self.mode)[0]
            left, top = left + pw, top + ph
        boxes[:, 0] += left
        boxes[:, 1] += top
        h, w = x.shape[:2]
        if h < ch or w < cw:
            raise RuntimeError(f"RandomCropWithBBox: crop size {self.size} is larger than the image {(h, w)}")
        y0, x0 = int(self.rng.integers(0, h - ch + 1)), int(self.rng.integers(0, w - cw + 1))
        return np.ascontiguousarray(x[y0 : y0 + ch, x0 : x0 + cw]), crop_boxes(boxes, y0, x0, ch, cw)


class RandomResizedCropWithBBox(_BoxOp):
    """``RandomResizedCropWithBBox(size, scale=(0.08, 1.0), ratio=(3/4, 4/3),
    interpolation=Inter.BILINEAR, max_attempts=10)``."""

    random = True

    def __init__(
        self,
        size: int | Sequence[int],
        scale: Sequence[float] = (0.08, 1.0),
        ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Inter = Inter.BILINEAR,
        max_attempts: int = 10,
    ) -> None:
        super().__init__()
        self.op = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        op = self.op
        top, left, h, w = crop_box(x.shape[0], x.shape[1], op.scale, op.ratio, op.attempts, self.rng)
        out = resize_image(np.ascontiguousarray(x[top : top + h, left : left + w]), *op.size, op.inter)
        boxes = crop_boxes(boxes, top, left, h, w)
        boxes[:, [0, 2]] *= op.size[1] / w
        boxes[:, [1, 3]] *= op.size[0] / h
        return out, boxes


class BoundingBoxAugment(_BoxOp):
    """``BoundingBoxAugment(transform, ratio=0.3)``: ``transform`` applied to the image regions
    of a random ``ratio`` of the boxes."""

    random = True

    def __init__(self, transform: Any, ratio: float = 0.3) -> None:
        super().__init__()
        if not callable(transform):
            raise TypeError(f"BoundingBoxAugment: transform must be an operation, got {transform!r}")
        self.transform, self.ratio = transform, probability(ratio, "BoundingBoxAugment")

    def apply(self, x: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = x.copy()
        count = int(len(boxes) * self.ratio)
        for i in self.rng.permutation(len(boxes))[:count]:
            bx, by, bw, bh = (int(v) for v in boxes[i, :4])
            region = out[by : by + bh, bx : bx + bw]
            done = (
                self.transform.apply_batch(region[np.newaxis], self.rng)[0]
                if isinstance(self.transform, DataOp)
                else np.asarray(self.transform(region))
            )
            if done.shape != region.shape:
                raise RuntimeError(
                    f"BoundingBoxAugment: the transform changed a region's shape "
                    f"{region.shape} to {done.shape}"
                )
            out[by : by + bh, bx : bx + bw] = done
        return out, boxes
