"""The process group of a data-parallel job: MPI's world communicator, via mpi4py.

Contract: ``init()`` is called once per process (again after ``release()``); every other
function here is collective when the world has more than one rank, so all ranks must call
it in the same order (as with any MPI program). Without ``init()`` the world is one
process: ``get_rank() == 0`` and ``get_group_size() == 1`` only when the process was not
started by an MPI launcher (otherwise they raise, as MindSpore's do).

Faults: after ``init()`` an exception that escapes to the interpreter (``sys.excepthook``)
on any rank prints one line ``rank R of N failed: ...`` and aborts the whole job
(``MPI_Abort``), so the other ranks stop at once instead of waiting in a collective;
:func:`abort` does the same for errors a program reports itself (the CLI's exit 2). A rank
killed by a signal is noticed by MPICH's launcher, which ends the others. A rank that
stops answering (frozen, hung) is noticed by the collective timeout of :mod:`.watch`:
the job ends with one line naming it.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from typing import Any

import numpy as np

from . import watch

INSTALL_HINT = ("pip install -e '.[dist]' in the project's folder (mpi4py + mpich, whose mpiexec "
                "launches the ranks)")
# environment variables by which MPI launchers (MPICH's hydra, Open MPI, PMIx) mark their ranks
_LAUNCHER_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")


class MissingDependency(ImportError):
    """mpi4py (the ``dist`` extra) is not installed."""


class RankMismatch(RuntimeError):
    """Ranks of one job disagree on something that must be equal (config, shapes)."""


class GlobalComm:
    """MindSpore's name for the world group; ``WORLD_COMM_GROUP`` is its only group here."""

    BACKEND = "mpi"
    WORLD_COMM_GROUP = "mpi_world_group"
    INITED = False


_state: dict[str, Any] = {"comm": None, "mpi": None, "hook": None}
# all-reduces of this process over several ranks: count, bytes sent, seconds inside MPI
# (waiting for slower ranks included); bench/dist.py reads them
STATS: dict[str, float] = {"calls": 0, "bytes": 0, "seconds": 0.0}


def mpi_module() -> Any:
    """``mpi4py.MPI`` (importing it initializes MPI); a one-line error when missing."""
    if _state["mpi"] is None:
        try:
            from mpi4py import MPI
        except ImportError as error:
            raise MissingDependency(f"data-parallel training needs MPI: {INSTALL_HINT}") from error
        _state["mpi"] = MPI
    return _state["mpi"]


def launched_by_mpi() -> bool:
    """True when an MPI launcher started this process as one of several ranks."""
    for var in _LAUNCHER_SIZE_VARS:
        try:
            if int(os.environ.get(var, "1")) > 1:
                return True
        except ValueError:
            continue
    return False


def init(backend_name: str | None = None) -> None:
    """Join the job's process group (MPI's world). ``backend_name`` ('hccl', 'nccl', 'mpi'
    or None) is accepted for MindSpore's scripts; the transport is always MPI."""
    if backend_name not in (None, "hccl", "nccl", "mpi", "gloo"):
        raise ValueError(f"init: unknown backend_name {backend_name!r}; use 'mpi' (or leave it out)")
    if _state["comm"] is not None:
        return
    watch.timeout()  # a bad TWINMODE_COLLECTIVE_TIMEOUT is an error here, not mid-training
    MPI = mpi_module()
    _state["comm"] = MPI.COMM_WORLD.Dup()  # our own context: user MPI traffic never mixes in
    GlobalComm.INITED = True
    if _state["comm"].Get_size() > 1:
        watch.attach(_state["comm"])
    if _state["comm"].Get_size() > 1 and _state["hook"] is None:
        _state["hook"] = sys.excepthook
        sys.excepthook = _abort_on_uncaught


def is_initialized() -> bool:
    return _state["comm"] is not None


def release() -> None:
    """Leave the process group (MPI itself is finalized when the process exits)."""
    comm = _state["comm"]
    if comm is None:
        return
    watch.detach()
    comm.Free()
    _state["comm"] = None
    GlobalComm.INITED = False
    if _state["hook"] is not None:
        sys.excepthook, _state["hook"] = _state["hook"], None


def _comm() -> Any:
    if _state["comm"] is None:
        if launched_by_mpi():
            raise RuntimeError("framework.communication: call init() first (this process is one "
                               "rank of an MPI job)")
        return None
    return _state["comm"]


def _check_group(group: Any) -> None:
    if group not in (None, GlobalComm.WORLD_COMM_GROUP, "hccl_world_group", "nccl_world_group"):
        raise ValueError(f"group {group!r}: only the world group exists (sub-groups are not supported)")


def get_rank(group: Any = None) -> int:
    """This process's rank in the world (0 .. size-1)."""
    _check_group(group)
    comm = _comm()
    return 0 if comm is None else comm.Get_rank()


def get_group_size(group: Any = None) -> int:
    """Number of ranks in the world."""
    _check_group(group)
    comm = _comm()
    return 1 if comm is None else comm.Get_size()


def get_local_rank(group: Any = None) -> int:
    """This process's rank among the ranks of its machine."""
    _check_group(group)
    comm = _comm()
    if comm is None:
        return 0
    MPI = mpi_module()
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return local.Get_rank()
    finally:
        local.Free()


def allreduce_array(array: np.ndarray, out: np.ndarray | None = None, op: str = "sum") -> np.ndarray:
    """Element-wise ``op`` ('sum', 'max', 'min', 'prod') of ``array`` over all ranks into
    ``out`` (a new array when None; may be ``array`` itself). One process: a copy."""
    send = np.ascontiguousarray(array)
    if out is None:
        out = np.empty_like(send)
    comm = _comm()
    if comm is None or comm.Get_size() == 1:
        if out is not send:
            np.copyto(out, send)
        return out
    MPI = mpi_module()
    ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
    start = time.perf_counter()
    request = comm.Iallreduce(MPI.IN_PLACE if out is send else send, out, op=ops[op])
    watch.wait(request, "all-reduce")
    STATS["calls"] += 1
    STATS["bytes"] += send.nbytes
    STATS["seconds"] += time.perf_counter() - start
    return out


def allgather_object(value: Any) -> list[Any]:
    """Every rank's ``value`` (picklable), in rank order."""
    comm = _comm()
    if comm is None or comm.Get_size() == 1:
        return [value]
    MPI = mpi_module()
    data = pickle.dumps(value)
    sizes = np.zeros(comm.Get_size(), np.int64)
    watch.wait(comm.Iallgather(np.array([len(data)], np.int64), sizes), "all-gather")
    buffer = bytearray(int(sizes.sum()))
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    watch.wait(comm.Iallgatherv(data, [buffer, sizes.tolist(), offsets.tolist(), MPI.BYTE]), "all-gather")
    return [pickle.loads(buffer[o:o + n]) for o, n in zip(offsets, sizes)]


def broadcast_object(value: Any, root: int = 0) -> Any:
    """Rank ``root``'s ``value`` on every rank."""
    comm = _comm()
    if comm is None or comm.Get_size() == 1:
        return value
    MPI = mpi_module()
    data = pickle.dumps(value) if comm.Get_rank() == root else b""
    size = np.array([len(data)], np.int64)
    watch.wait(comm.Ibcast(size, root=root), "broadcast")
    buffer = bytearray(data) if comm.Get_rank() == root else bytearray(int(size[0]))
    watch.wait(comm.Ibcast([buffer, MPI.BYTE], root=root), "broadcast")
    return value if comm.Get_rank() == root else pickle.loads(buffer)


def check_consistent(what: str, value: Any) -> None:
    """Raise :class:`RankMismatch` (the same one line on every rank) unless every rank
    passes an equal ``value``."""
    values = allgather_object(value)
    odd = [r for r, v in enumerate(values) if v != values[0]]
    if odd:
        raise RankMismatch(f"ranks disagree on {what}: rank 0 has {_short(values[0])}, rank {odd[0]} "
                           f"has {_short(values[odd[0]])}; start every rank with the same config, "
                           "code and checkpoint")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def abort(message: str, code: int = 1, quiet: bool = False) -> None:
    """Print ``rank R of N failed: message`` and end every rank of the job (never returns
    when there are several ranks; with one it just returns). ``quiet``: end without the
    line (an event every rank sees alike, such as Ctrl-C, is told by rank 0 alone)."""
    comm = _state["comm"]
    if comm is None or comm.Get_size() == 1:
        return
    if not quiet:
        sys.stderr.write(f"rank {comm.Get_rank()} of {comm.Get_size()} failed: {message}; "
                         "stopping all ranks\n")
    sys.stderr.flush()
    sys.stdout.flush()
    comm.Abort(code)


def _abort_on_uncaught(kind: type, error: BaseException, tb: Any) -> None:
    previous = _state["hook"] or sys.__excepthook__
    previous(kind, error, tb)
    first = str(error).splitlines()[0] if str(error) else ""
    abort(f"{kind.__name__}: {first}" if first else kind.__name__)
