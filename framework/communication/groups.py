"""Named process groups and the array transfers MindSpore's communication functions need
(gather to all, broadcast, point-to-point, barrier), on MPI communicators.

Contract: a group is a name (``str``). The world group has the names of
:class:`~.management.GlobalComm` (and None); :func:`new_group` makes a sub-group of the
given world ranks, named ``"group_<r1>_<r2>..."`` (the same name on every rank), by
splitting the world, so every rank of the world calls it (as with
``torch.distributed.new_group``); a rank outside the group gets the name too and may not
use it. Ranks given to the transfers are world ranks, as MindSpore's ``src``/``dst`` are.

Without ``init()`` and without an MPI launcher the world is this one process (rank 0 of
1): the transfers are copies, and sending to or receiving from oneself is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import watch
from .management import GlobalComm, _comm, mpi_module

WORLD_NAMES = (None, GlobalComm.WORLD_COMM_GROUP, "hccl_world_group", "nccl_world_group")
_groups: dict[str, tuple[tuple[int, ...], Any]] = {}  # name -> (world ranks, communicator or None)


def world_size() -> int:
    comm = _comm()
    return 1 if comm is None else comm.Get_size()


def world_rank() -> int:
    comm = _comm()
    return 0 if comm is None else comm.Get_rank()


def new_group(ranks: list[int] | None = None) -> str:
    """A group of the given world ranks (all of them when None): its name."""
    size = world_size()
    members = tuple(range(size)) if ranks is None else tuple(int(r) for r in ranks)
    if not members or len(set(members)) != len(members) or not all(0 <= r < size for r in members):
        raise ValueError(f"new_group: ranks must be distinct ranks of the world (0 .. {size - 1}), "
                         f"got {list(members)}")
    name = "group_" + "_".join(str(r) for r in members)
    if name in _groups:
        return name
    comm = _comm()
    sub = None
    if comm is not None and size > 1:
        MPI = mpi_module()
        me = comm.Get_rank()
        sub = comm.Split(0 if me in members else MPI.UNDEFINED, members.index(me) if me in members else 0)
        sub = None if sub == MPI.COMM_NULL else sub
    _groups[name] = (members, sub)
    return name


def ranks_of(group: Any) -> tuple[int, ...]:
    """The world ranks of ``group``, in its rank order."""
    if group in WORLD_NAMES:
        return tuple(range(world_size()))
    if not isinstance(group, str):
        raise TypeError(f"group must be a str (a name from new_group), got {type(group).__name__}")
    if group not in _groups:
        raise ValueError(f"group {group!r} does not exist: make it with new_group(ranks) on every rank")
    return _groups[group][0]


def communicator(group: Any) -> tuple[Any, tuple[int, ...]]:
    """(MPI communicator or None for a world of one, the group's world ranks); this rank
    must belong to the group."""
    members = ranks_of(group)
    if world_rank() not in members:
        raise ValueError(f"rank {world_rank()} is not a member of group {group!r} (ranks {list(members)})")
    if group in WORLD_NAMES:
        comm = _comm()
        return (comm if comm is not None and comm.Get_size() > 1 else None), members
    return _groups[group][1], members


def allgather(array: np.ndarray, group: Any) -> list[np.ndarray]:
    """Every member's ``array`` (the same shape and dtype on each), in group rank order."""
    comm, members = communicator(group)
    send = np.ascontiguousarray(array)
    if comm is None:
        return [send.copy()]
    out = np.empty((len(members),) + send.shape, send.dtype)
    watch.wait(comm.Iallgather(send, out), "all-gather")
    return list(out)


def broadcast(array: np.ndarray, src: int, group: Any) -> np.ndarray:
    """World rank ``src``'s ``array`` on every member."""
    comm, members = communicator(group)
    if int(src) not in members:
        raise ValueError(f"broadcast: src {src} is not a rank of the group (ranks {list(members)})")
    buffer = np.array(array, copy=True, order="C")
    if comm is not None:
        watch.wait(comm.Ibcast(buffer, root=members.index(int(src))), "broadcast")
    return buffer


def barrier(group: Any) -> None:
    comm, _ = communicator(group)
    if comm is not None:
        watch.wait(comm.Ibarrier(), "barrier")


def _peer(op: str, peer: int, members: tuple[int, ...], what: str) -> int:
    if int(peer) == world_rank():
        raise ValueError(f"{op}: the {what} rank {peer} is this process's own rank")
    if int(peer) not in members:
        raise ValueError(f"{op}: {what} {peer} is not a rank of the group (ranks {list(members)})")
    return members.index(int(peer))


def send(array: np.ndarray, dst: int, group: Any, tag: int) -> None:
    comm, members = communicator(group)
    peer = _peer("send", dst, members, "dst")
    watch.wait(comm.Isend(np.ascontiguousarray(array), dest=peer, tag=int(tag)), "send")


def recv(like: np.ndarray, src: int, group: Any, tag: int) -> np.ndarray:
    """What world rank ``src`` sends (``like``'s shape and dtype)."""
    comm, members = communicator(group)
    peer = _peer("recv", src, members, "src")
    buffer = np.empty_like(np.ascontiguousarray(like))
    watch.wait(comm.Irecv(buffer, source=peer, tag=int(tag)), "recv")
    return buffer
