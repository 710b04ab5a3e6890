"""``mindspore.dataset.vision.c_transforms`` (MindSpore 1.x path): the same operations as ``vision``."""

from . import *  # noqa: F403
from . import __all__  # noqa: F401
