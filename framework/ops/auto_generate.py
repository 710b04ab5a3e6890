"""``mindspore.ops.auto_generate``: the generated primitive classes MindSpore code imports
from here; the view primitives (see :mod:`framework.ops.view_ops`)."""

from .view_ops import *  # noqa: F403
from .view_ops import __all__  # noqa: F401
