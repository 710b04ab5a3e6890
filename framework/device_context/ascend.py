"""``mindspore.device_context.ascend``: the Ascend backend, which this CPU framework does not have:
``is_available()`` is False and ``device_count()`` refuses with one line, as MindSpore's
does on a machine without Ascend."""


def is_available() -> bool:
    """The Ascend backend is not here."""
    return False


def device_count() -> int:
    """Refused: there is no Ascend backend here."""
    raise RuntimeError("device_context.ascend.device_count: this framework has no Ascend backend "
                       "(it runs on the CPU: device_context.cpu)")


__all__ = ["device_count", "is_available"]
