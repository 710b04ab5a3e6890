"""``mindspore.dataset.transforms.c_transforms`` (MindSpore 1.x path): the same operations as ``transforms``."""

from . import *  # noqa: F403
from . import __all__  # noqa: F401
