"""``ms.set_auto_parallel_context``: how a multi-process job splits the work.

Only data parallelism is implemented: every rank holds the whole model, trains on its
own shard of each batch, and the gradients are averaged (``gradients_mean=True``) or
summed over the ranks before the update. ``nn.TrainOneStepCell`` reads this context
when it is built (as MindSpore's does) and then reduces the gradients itself.

Keys: ``parallel_mode`` (``ParallelMode.STAND_ALONE`` or ``DATA_PARALLEL``),
``gradients_mean`` (bool), ``device_num`` (0: the world size), ``global_rank`` (-1: the
process's rank), ``parameter_broadcast`` (bool: rank 0's initial parameters to all),
``comm_fusion_bytes`` (the gradient bucket size in bytes, at least 1 MB).
"""

from __future__ import annotations

from typing import Any

MIN_BUCKET_BYTES = 1 << 20


class ParallelMode:
    """MindSpore's parallel mode names."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_SUPPORTED = (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL)
_DEFAULTS: dict[str, Any] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 0,
    "global_rank": -1,
    "parameter_broadcast": False,
    "comm_fusion_bytes": 4 * MIN_BUCKET_BYTES,
}
_context: dict[str, Any] = dict(_DEFAULTS)


def _check(key: str, value: Any) -> Any:
    if key == "parallel_mode":
        if value not in ParallelMode.MODE_LIST:
            raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of "
                             f"{', '.join(ParallelMode.MODE_LIST)}, got {value!r}")
        if value not in _SUPPORTED:
            raise ValueError(f"set_auto_parallel_context: parallel_mode {value!r} is not supported; "
                             "use ParallelMode.DATA_PARALLEL (or STAND_ALONE)")
        return value
    if key in ("gradients_mean", "parameter_broadcast"):
        if not isinstance(value, bool):
            raise ValueError(f"set_auto_parallel_context: {key} must be True or False, got {value!r}")
        return value
    if key in ("device_num", "global_rank"):
        low = 0 if key == "device_num" else -1
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"set_auto_parallel_context: {key} must be an int >= {low}, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_BUCKET_BYTES:
        raise ValueError(f"set_auto_parallel_context: comm_fusion_bytes must be an int >= "
                         f"{MIN_BUCKET_BYTES} (1 MB), got {value!r}")
    return value


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set keys of the parallel context (see the module docstring)."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise ValueError(f"set_auto_parallel_context: unknown key(s) {', '.join(unknown)}; valid keys "
                         f"are {', '.join(_DEFAULTS)}")
    checked = {key: _check(key, value) for key, value in kwargs.items()}
    _context.update(checked)


def get_auto_parallel_context(key: str) -> Any:
    if key not in _context:
        raise ValueError(f"get_auto_parallel_context: unknown key {key!r}; valid keys are "
                         f"{', '.join(_context)}")
    if key == "device_num" and _context[key] == 0:
        return _world()[1]
    if key == "global_rank" and _context[key] == -1:
        return _world()[0]
    return _context[key]


def reset_auto_parallel_context() -> None:
    """Every key back to its default (stand-alone)."""
    _context.clear()
    _context.update(_DEFAULTS)


def is_data_parallel() -> bool:
    return _context["parallel_mode"] == ParallelMode.DATA_PARALLEL


def _world() -> tuple[int, int]:
    from .communication import management

    if not management.is_initialized():
        return 0, 1
    return management.get_rank(), management.get_group_size()
