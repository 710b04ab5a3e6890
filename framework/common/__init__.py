"""Common utilities (``framework.common.initializer``), MindSpore's ``mindspore.common``:
its submodules ``dtype``, ``initializer``, ``parameter`` and ``tensor`` are attributes of the
package once it is imported (``ms.common.dtype.float32``), as in MindSpore."""

from . import dtype, initializer, parameter, tensor  # noqa: F401
