"""``mindspore.device_context.gpu``: the GPU backend, which this CPU framework does not have:
``is_available()`` is False and ``device_count()`` refuses with one line, as MindSpore's
does on a machine without GPU."""


def is_available() -> bool:
    """The GPU backend is not here."""
    return False


def device_count() -> int:
    """Refused: there is no GPU backend here."""
    raise RuntimeError("device_context.gpu.device_count: this framework has no GPU backend "
                       "(it runs on the CPU: device_context.cpu)")


__all__ = ["device_count", "is_available"]
