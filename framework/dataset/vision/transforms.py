"""``mindspore.dataset.vision.transforms`` (MindSpore 2.x module path): the same operations as ``vision``."""

from . import *  # noqa: F403
from . import __all__  # noqa: F401
