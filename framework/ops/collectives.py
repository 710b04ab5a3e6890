"""MindSpore's communication functions (``ops.all_gather``, ``broadcast``, ``barrier``,
``send``, ``recv``, ``get_rank``, ``new_group``, ``get_process_group_ranks``,
``get_backend``) on :mod:`framework.communication`'s MPI groups.

Contracts (MindSpore 2.10's documented behaviour; PyNative only, as MindSpore's):

- ``all_gather(tensor_list, tensor, group=None, async_op=False)`` fills ``tensor_list`` (one
  tensor per member, each ``tensor``'s shape and dtype) in place with every member's
  ``tensor``; ``broadcast(tensor, src, ...)`` overwrites ``tensor`` with world rank
  ``src``'s; ``recv(tensor, src=0, ...)`` overwrites ``tensor`` with what ``src`` sends and
  returns 0; ``send(tensor, dst=0, ...)``; ``barrier``. With ``async_op`` they return a
  :class:`CommHandle` (the transfer is already complete: ``wait()`` returns at once), else
  None. ``src``/``dst`` are world ranks; sending to oneself is a ``ValueError``.
- ``new_group(ranks)`` returns the group's name (every rank calls it);
  ``get_process_group_ranks(group)`` its world ranks; ``get_rank(group)`` this process's
  rank in it; ``get_backend`` is ``"mpi"`` (the transport here).
- Without ``init()`` and an MPI launcher the world is this one process (rank 0 of 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..communication import groups
from ..communication.management import GlobalComm
from ._utils import argument_error


class CommHandle:
    """An asynchronous operation's handle; the transfers here complete before it is returned."""

    def wait(self) -> None:
        return None

    def is_completed(self) -> bool:
        return True


def _handle(async_op: bool) -> CommHandle | None:
    if not isinstance(async_op, bool):
        raise argument_error("communication", TypeError(f"async_op must be a bool, got {async_op!r}"))
    return CommHandle() if async_op else None


def _tensor(op: str, value: Any, what: str = "tensor") -> Any:
    if not hasattr(value, "asnumpy"):
        raise argument_error(op, TypeError(f"{what} must be a Tensor, got {type(value).__name__}"))
    return value


def _fill(tensor: Any, array: np.ndarray) -> None:
    tensor.copy_(type(tensor)(array))


def _rank(op: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise argument_error(op, TypeError(f"{name} must be an int (a world rank), got {value!r}"))
    return int(value)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _tensor("all_gather", tensor)
    if not isinstance(tensor_list, list | tuple) or not all(hasattr(t, "asnumpy") for t in tensor_list):
        raise argument_error("all_gather", TypeError("tensor_list must be a list of Tensors"))
    members = groups.ranks_of(group)
    if len(tensor_list) != len(members):
        raise argument_error("all_gather", TypeError(
            f"tensor_list has {len(tensor_list)} tensors but the group has {len(members)} ranks"))
    for t in tensor_list:
        if tuple(t.shape) != tuple(tensor.shape) or t.dtype != tensor.dtype:
            raise argument_error("all_gather", TypeError(
                f"each tensor of tensor_list must have tensor's shape {tuple(tensor.shape)} and dtype "
                f"{tensor.dtype}, got {tuple(t.shape)} {t.dtype}"))
    for out, part in zip(tensor_list, groups.allgather(tensor.asnumpy(), group)):
        _fill(out, part)
    return _handle(async_op)


def broadcast(tensor, src, group=None, async_op=False):
    _tensor("broadcast", tensor)
    _fill(tensor, groups.broadcast(tensor.asnumpy(), _rank("broadcast", "src", src), group))
    return _handle(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    groups.barrier(group)
    return _handle(async_op)


def send(tensor, dst=0, group=None, tag=0):
    _tensor("send", tensor)
    groups.send(tensor.asnumpy(), _rank("send", "dst", dst), group, tag)


def recv(tensor, src=0, group=None, tag=0):
    _tensor("recv", tensor)
    _fill(tensor, groups.recv(tensor.asnumpy(), _rank("recv", "src", src), group, tag))
    return 0


def get_rank(group=None):
    members = groups.ranks_of(group)
    me = groups.world_rank()
    if me not in members:
        raise argument_error("get_rank", ValueError(f"rank {me} is not a member of group {group!r}"))
    return members.index(me)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None):
    if backend not in (None, "mpi", "hccl", "mccl", "nccl"):
        raise argument_error("new_group", ValueError(f"unknown backend {backend!r}; the transport is MPI"))
    return groups.new_group(ranks)


def get_process_group_ranks(group=None):
    return list(groups.ranks_of(group))


def get_backend(group=None):
    groups.ranks_of(group)
    return GlobalComm.BACKEND
