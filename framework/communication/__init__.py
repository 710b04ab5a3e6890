"""``mindspore.communication``: several processes training one model, on MPI.

    from framework.communication import init, get_rank, get_group_size
    init()                                  # under `mpirun -n 4 python train.py`
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)

The transport is MPI through ``mpi4py`` (the ``dist`` extra: ``pip install -e
'.[dist]'`` in the project's folder brings ``mpi4py`` and MPICH's wheel, whose ``mpiexec``
launches the processes). Launched without ``mpiexec`` the world is this one process (rank 0 of 1).

A collective that waits longer than ``timeout()`` seconds (``set_timeout``, or the
``TWINMODE_COLLECTIVE_TIMEOUT`` environment variable; 300 by default) for a rank that
never arrives ends the job with one line naming that rank (:mod:`.watch`).
"""

from .management import (
    GlobalComm,
    MissingDependency,
    RankMismatch,
    abort,
    allgather_object,
    allreduce_array,
    broadcast_object,
    check_consistent,
    get_group_size,
    get_local_rank,
    get_rank,
    init,
    is_initialized,
    launched_by_mpi,
    release,
)
from .watch import TIMEOUT_ENV, set_timeout, timeout

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MPI_WORLD_COMM_GROUP = "mpi_world_group"

__all__ = ["GlobalComm", "HCCL_WORLD_COMM_GROUP", "MPI_WORLD_COMM_GROUP", "MissingDependency",
           "NCCL_WORLD_COMM_GROUP", "RankMismatch", "abort", "allgather_object", "allreduce_array",
           "broadcast_object", "check_consistent", "get_group_size", "get_local_rank", "get_rank",
           "init", "is_initialized", "launched_by_mpi", "release", "set_timeout", "timeout", "TIMEOUT_ENV"]
