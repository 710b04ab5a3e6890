"""``mindspore.dataset.transforms.c_transforms`` (MindSpore 1.x path): the operations of ``transforms``."""

from . import *  # noqa: F403
from . import __all__  # noqa: F401
