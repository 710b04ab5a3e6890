"""``mindspore.device_context``: one submodule per backend (``cpu``, ``gpu``, ``ascend``), each
saying whether the backend is here (``is_available()``) and how many devices it has
(``device_count()``). This framework runs on the CPU: ``cpu`` is available with one device;
``gpu`` and ``ascend`` are not (``device_count()`` refuses with one line, as MindSpore's
does where the backend is absent)."""

from framework import absent_names as _absent_names

from . import ascend, cpu, gpu

__all__ = ["ascend", "cpu", "gpu"]

__getattr__ = _absent_names.module_getattr("device_context", __name__)
