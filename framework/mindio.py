"""MindSpore's MindIO hooks: ``set_mindio_server_info`` (the MindIO server's memory pool)
and ``mindio_preload`` (read a checkpoint into MindIO's cache ahead of loading it). MindIO is
Huawei's storage-acceleration service; without it, as here, MindSpore keeps the setting and
``mindio_preload`` answers False (nothing preloaded), which is what this framework does."""

from __future__ import annotations

_server_info: dict[str, str] = {}


def set_mindio_server_info(data_block_pool_capacity_in_gb: int = 100) -> None:
    """Keep the MindIO server's data-block pool size (GB, a positive int) for when it starts."""
    value = data_block_pool_capacity_in_gb
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"The 'data_block_pool_capacity_in_gb' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"The 'data_block_pool_capacity_in_gb' must be int and must > 0, but got '{value}'")
    _server_info["memfs.data_block_pool_capacity_in_gb"] = str(value)


def mindio_preload(ckpt_file_name: str) -> bool:
    """Whether ``ckpt_file_name`` was preloaded into MindIO: False, MindIO is not here."""
    if not isinstance(ckpt_file_name, str):
        raise TypeError("For 'mindio_preload', the type of 'ckpt_file_name' should be 'str', but got type "
                        f"'{type(ckpt_file_name).__name__}'.")
    return False
