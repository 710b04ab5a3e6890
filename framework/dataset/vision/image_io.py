"""``mindspore.dataset.vision``'s image files and encodings (through Pillow): ``Decode``,
``read_file``/``write_file``, ``read_image`` (with :class:`ImageReadMode`),
``encode_jpeg``/``encode_png``, ``write_jpeg``/``write_png``, ``get_image_size``,
``get_image_num_channels``; and the PIL bridge: ``ToPIL``, ``ToNumpy``, ``Grayscale``,
``RandomGrayscale``, ``FiveCrop``, ``TenCrop`` (PIL images in, PIL images out, as MindSpore's
Python operations; NumPy ``H x W [x C]`` images are accepted too).

Video (``DecodeVideo``, ``VideoDecoder``, ``read_video``, ``read_video_timestamps``) needs
FFmpeg, which MindSpore links and this framework does not: they raise one line saying so.
"""

from __future__ import annotations

import io
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from ..config import get_seed
from ..ops_base import SampleOp
from .geometry import size_pair
from .random_color import probability


class ImageReadMode(Enum):
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def _bytes(data: Any, what: str) -> bytes:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    array = np.asarray(data.asnumpy() if hasattr(data, "asnumpy") else data)
    if array.dtype != np.uint8 or array.ndim != 1:
        raise TypeError(
            f"{what}: expected encoded image bytes (a 1-D uint8 array), got "
            f"{array.dtype} of shape {array.shape}"
        )
    return array.tobytes()


def _open(data: bytes, what: str) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Exception as error:  # noqa: BLE001  (Pillow raises several kinds for bad data)
        raise RuntimeError(f"{what}: the bytes are not an image Pillow can decode ({error})") from None
    return image


def decode_array(data: Any, what: str = "Decode") -> np.ndarray:
    """Encoded bytes -> ``H x W x 3`` RGB uint8."""
    return np.asarray(_open(_bytes(data, what), what).convert("RGB"))


class Decode(SampleOp):
    """``Decode(to_pil=False)``: JPEG/PNG/BMP/TIFF bytes to an RGB image (a PIL image with ``to_pil``)."""

    def __init__(self, to_pil: bool = False) -> None:
        self.to_pil = bool(to_pil)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return decode_array(x)

    def __call__(self, sample: Any) -> Any:
        if self.to_pil:
            return _open(_bytes(sample, "Decode"), "Decode").convert("RGB")
        return decode_array(sample)


def read_file(filename: str) -> np.ndarray:
    """A file's bytes as a 1-D uint8 array."""
    try:
        return np.frombuffer(Path(filename).read_bytes(), dtype=np.uint8).copy()
    except OSError as error:
        raise RuntimeError(f"read_file: cannot read {filename!r}: {error.strerror}") from None


def write_file(filename: str, data: Any) -> None:
    """Write a 1-D uint8 array's bytes to ``filename``."""
    Path(filename).write_bytes(_bytes(data, "write_file"))


def read_image(filename: str, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """An image file decoded: ``H x W x C`` uint8 (``GRAYSCALE``: ``H x W x 1``; ``COLOR``: RGB)."""
    image = _open(read_file(filename).tobytes(), "read_image")
    if mode is ImageReadMode.GRAYSCALE:
        if image.format == "JPEG":
            return np.asarray(image.convert("L"))[..., None]
        rgb = np.asarray(image.convert("RGB")).astype(np.float64)
        # libpng's conversion truncates (OpenCV's decoder asks it for grey)
        return np.floor(rgb @ np.array([0.299, 0.587, 0.114]) + 1e-9).astype(np.uint8)[..., None]
    if mode is ImageReadMode.COLOR or image.mode not in ("L", "RGB", "RGBA"):
        return np.asarray(image.convert("RGB"))
    array = np.asarray(image)
    return array[..., None] if array.ndim == 2 else array


def _image_array(image: Any, what: str) -> np.ndarray:
    array = np.asarray(image.asnumpy() if hasattr(image, "asnumpy") else image)
    if (
        array.dtype != np.uint8
        or array.ndim not in (2, 3)
        or (array.ndim == 3 and array.shape[2] not in (1, 3))
    ):
        raise RuntimeError(
            f"{what}: expected an H x W [x 1 or 3] uint8 image, got {array.dtype} {array.shape}"
        )
    return array[..., 0] if array.ndim == 3 and array.shape[2] == 1 else array


def _encode(image: Any, fmt: str, what: str, **options: Any) -> np.ndarray:
    buffer = io.BytesIO()
    Image.fromarray(_image_array(image, what)).save(buffer, format=fmt, **options)
    return np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()


def encode_jpeg(image: Any, quality: int = 75) -> np.ndarray:
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise RuntimeError(f"encode_jpeg: quality must be an int in [1, 100], got {quality!r}")
    return _encode(image, "JPEG", "encode_jpeg", quality=quality)


def encode_png(image: Any, compression_level: int = 6) -> np.ndarray:
    if (
        isinstance(compression_level, bool)
        or not isinstance(compression_level, int)
        or not 0 <= compression_level <= 9
    ):
        raise ValueError(f"encode_png: compression_level must be an int in [0, 9], got {compression_level!r}")
    return _encode(image, "PNG", "encode_png", compress_level=compression_level)


def write_jpeg(filename: str, image: Any, quality: int = 75) -> None:
    write_file(filename, encode_jpeg(image, quality))


def write_png(filename: str, image: Any, compression_level: int = 6) -> None:
    write_file(filename, encode_png(image, compression_level))


def get_image_size(image: Any) -> list[int]:
    """``[height, width]`` of an ``H x W [x C]`` array or a PIL image."""
    if isinstance(image, Image.Image):
        return [image.height, image.width]
    return [int(v) for v in np.shape(image)[:2]]


def get_image_num_channels(image: Any) -> int:
    if isinstance(image, Image.Image):
        return len(image.getbands())
    shape = np.shape(image)
    return 1 if len(shape) == 2 else int(shape[2])


class ToPIL:
    """``ToPIL()``: an ``H x W [x C]`` uint8 array as a PIL image."""

    def __call__(self, image: Any) -> Image.Image:
        if isinstance(image, Image.Image):
            return image
        array = np.asarray(image)
        if array.dtype != np.uint8:
            raise TypeError(f"ToPIL: the input image type {array.dtype} is not supported (uint8 only)")
        return Image.fromarray(array[..., 0] if array.ndim == 3 and array.shape[2] == 1 else array)


class ToNumpy:
    """``ToNumpy()``: a PIL image as an ``H x W [x C]`` array."""

    def __call__(self, image: Any) -> np.ndarray:
        return np.array(image)


def _pil(image: Any) -> tuple[Image.Image, bool]:
    return (image, True) if isinstance(image, Image.Image) else (ToPIL()(image), False)


class Grayscale:
    """``Grayscale(num_output_channels=1)``: PIL's ``convert("L")`` (3 equal channels for 3)."""

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels!r}")
        self.channels = num_output_channels

    def __call__(self, image: Any) -> Any:
        pil, was_pil = _pil(image)
        grey = pil.convert("L")
        out = grey if self.channels == 1 else Image.merge("RGB", (grey, grey, grey))
        return out if was_pil else np.asarray(out)


class RandomGrayscale:
    """``RandomGrayscale(prob=0.1)``: ``Grayscale`` (as many channels as the input) with
    probability ``prob``."""

    random = True

    def __init__(self, prob: float = 0.1) -> None:
        self.prob = probability(prob, "RandomGrayscale")
        self._rng = np.random.default_rng(get_seed())

    def __call__(self, image: Any) -> Any:
        if self._rng.random() >= self.prob:
            return image
        return Grayscale(get_image_num_channels(image) if get_image_num_channels(image) == 3 else 1)(image)


def _crop(pil: Image.Image, top: int, left: int, h: int, w: int) -> Image.Image:
    return pil.crop((left, top, left + w, top + h))


class FiveCrop:
    """``FiveCrop(size)``: the four corner crops and the centre crop (top-left, top-right,
    bottom-left, bottom-right, centre), as a tuple."""

    def __init__(self, size: int | tuple[int, int]) -> None:
        self.size = size_pair(size, type(self).__name__)

    def crops(self, pil: Image.Image) -> list[Image.Image]:
        h, w = self.size
        ih, iw = pil.height, pil.width
        if h > ih or w > iw:
            raise ValueError(
                f"{type(self).__name__}: crop size {self.size} is larger than the image {(ih, iw)}"
            )
        top, left = int(round((ih - h) / 2.0)), int(round((iw - w) / 2.0))
        return [
            _crop(pil, 0, 0, h, w),
            _crop(pil, 0, iw - w, h, w),
            _crop(pil, ih - h, 0, h, w),
            _crop(pil, ih - h, iw - w, h, w),
            _crop(pil, top, left, h, w),
        ]

    def __call__(self, image: Any) -> tuple[Any, ...]:
        pil, was_pil = _pil(image)
        out = self.crops(pil)
        return tuple(out if was_pil else (np.asarray(c) for c in out))


class TenCrop(FiveCrop):
    """``TenCrop(size, use_vertical_flip=False)``: ``FiveCrop`` of the image and of its mirror
    (left-right, or top-bottom with ``use_vertical_flip``)."""

    def __init__(self, size: int | tuple[int, int], use_vertical_flip: bool = False) -> None:
        super().__init__(size)
        self.vertical = bool(use_vertical_flip)

    def crops(self, pil: Image.Image) -> list[Image.Image]:
        flip = Image.Transpose.FLIP_TOP_BOTTOM if self.vertical else Image.Transpose.FLIP_LEFT_RIGHT
        return super().crops(pil) + super().crops(pil.transpose(flip))


def _no_video(what: str) -> RuntimeError:
    return RuntimeError(
        f"{what} needs FFmpeg, which this framework does not include; decode the "
        "video with another library and pass its frames as arrays"
    )


class DecodeVideo:
    """``DecodeVideo()``: not available here (see the module docstring)."""

    def __init__(self) -> None:
        raise _no_video("vision.DecodeVideo")


class VideoDecoder:
    """``VideoDecoder(source)``: not available here (see the module docstring)."""

    def __init__(self, source: Any) -> None:
        raise _no_video("vision.VideoDecoder")


def read_video(
    filename: str, start_pts: float = 0, end_pts: float | None = None, pts_unit: str = "pts"
) -> Any:
    raise _no_video("vision.read_video")


def read_video_timestamps(filename: str, pts_unit: str = "pts") -> Any:
    raise _no_video("vision.read_video_timestamps")


# present for MindSpore's programs, refusing every use (the coverage table counts them refused)
for _video in (DecodeVideo, VideoDecoder, read_video, read_video_timestamps):
    _video.__refused__ = str(_no_video(f"vision.{_video.__name__}"))
