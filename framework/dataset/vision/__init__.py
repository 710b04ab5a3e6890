"""``mindspore.dataset.vision``: image operations, vectorized over many samples.

Images are ``H x W`` or ``H x W x C`` (MnistDataset gives ``28 x 28 x 1`` uint8), so a batch
is ``N x H x W [x C]``; after :class:`HWC2CHW` they are ``C x H x W``. Each operation is a
:class:`~framework.dataset.ops_base.DataOp`: ``op(image)`` works on one image and the
pipeline applies ``op.apply_batch`` to whole arrays. Random operations draw from the
generator the pipeline gives them (seeded per epoch and batch), so epochs are reproducible.
"""

from ... import absent_names as _absent_names
from ..transforms.random_apply import not_random
from .augment import (
    AutoAugment,
    AutoAugmentPolicy,
    RandAugment,
    RandomSelectSubpolicy,
    TrivialAugmentWide,
    UniformAugment,
)
from .basic_ops import (
    HWC2CHW,
    Border,
    CenterCrop,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    Rescale,
    Resize,
    ToTensor,
)
from .batch_mix import CutMixBatch, ImageBatchFormat, MixUp, MixUpBatch
from .bbox import (
    BoundingBoxAugment,
    RandomCropWithBBox,
    RandomHorizontalFlipWithBBox,
    RandomResizedCropWithBBox,
    RandomResizeWithBBox,
    RandomVerticalFlipWithBBox,
    ResizeWithBBox,
)
from .color import (
    AdjustBrightness,
    AdjustContrast,
    AdjustGamma,
    AdjustSaturation,
    AdjustSharpness,
    AutoContrast,
    ConvertColor,
    ConvertMode,
    Equalize,
    Invert,
    LinearTransformation,
    Posterize,
    Solarize,
    ToType,
)
from .geometry import (
    Affine,
    Crop,
    Erase,
    GaussianBlur,
    HorizontalFlip,
    NormalizePad,
    PadToSize,
    Perspective,
    ResizedCrop,
    Rotate,
    SliceMode,
    SlicePatches,
    VerticalFlip,
)
from .hsv import AdjustHue, HsvToRgb, RgbToHsv
from .image_io import (
    Decode,
    DecodeVideo,
    FiveCrop,
    Grayscale,
    ImageReadMode,
    RandomGrayscale,
    TenCrop,
    ToNumpy,
    ToPIL,
    VideoDecoder,
    encode_jpeg,
    encode_png,
    get_image_num_channels,
    get_image_size,
    read_file,
    read_image,
    read_video,
    read_video_timestamps,
    write_file,
    write_jpeg,
    write_png,
)
from .random_color import (
    RandomAdjustSharpness,
    RandomAutoContrast,
    RandomColor,
    RandomColorAdjust,
    RandomEqualize,
    RandomInvert,
    RandomLighting,
    RandomPosterize,
    RandomSharpness,
    RandomSolarize,
)
from .random_geometry import (
    CutOut,
    RandomAffine,
    RandomCropDecodeResize,
    RandomErasing,
    RandomPerspective,
    RandomResize,
    RandomResizedCrop,
    RandomRotation,
    RandomVerticalFlip,
)
from .warp import Inter

__all__ = [
    "AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustHue", "AdjustSaturation", "AdjustSharpness",
    "Affine", "AutoAugment", "AutoAugmentPolicy", "AutoContrast", "Border", "BoundingBoxAugment",
    "CenterCrop", "ConvertColor", "ConvertMode", "Crop", "CutMixBatch", "CutOut", "Decode", "DecodeVideo",
    "Equalize", "Erase",
    "FiveCrop", "GaussianBlur", "Grayscale", "HWC2CHW", "HorizontalFlip", "HsvToRgb", "ImageBatchFormat",
    "ImageReadMode", "Inter", "Invert", "LinearTransformation", "MixUp", "MixUpBatch", "Normalize",
    "NormalizePad", "Pad", "PadToSize", "Perspective", "Posterize", "RandAugment", "RandomAdjustSharpness",
    "RandomAffine", "RandomAutoContrast", "RandomColor", "RandomColorAdjust", "RandomCrop",
    "RandomCropDecodeResize", "RandomCropWithBBox", "RandomEqualize", "RandomErasing", "RandomGrayscale",
    "RandomHorizontalFlip", "RandomHorizontalFlipWithBBox", "RandomInvert", "RandomLighting",
    "RandomPerspective", "RandomPosterize", "RandomResize", "RandomResizeWithBBox", "RandomResizedCrop",
    "RandomResizedCropWithBBox", "RandomRotation", "RandomSelectSubpolicy", "RandomSharpness",
    "RandomSolarize", "RandomVerticalFlip", "RandomVerticalFlipWithBBox", "Rescale", "Resize",
    "ResizeWithBBox", "ResizedCrop", "RgbToHsv", "Rotate", "SliceMode", "SlicePatches", "Solarize", "TenCrop",
    "ToNumpy", "ToPIL", "ToTensor", "ToType", "TrivialAugmentWide", "UniformAugment", "VerticalFlip",
    "VideoDecoder", "encode_jpeg", "encode_png", "get_image_num_channels", "get_image_size", "not_random",
    "read_file", "read_image", "read_video", "read_video_timestamps", "write_file", "write_jpeg", "write_png",
]

__getattr__ = _absent_names.module_getattr("dataset.vision", __name__)
