"""A run as one rank of a data-parallel job (``mpirun -n N train run ...``, ``--nproc N``).

Contract with the executor (:func:`trainer.executor.execute`): when :func:`join` returns a
:class:`Rank` with ``size > 1``, the experiment

- has MindSpore's data-parallel context set (``framework.communication.init()``,
  ``DATA_PARALLEL`` with ``gradients_mean=True``), so ``nn.TrainOneStepCell`` all-reduces
  the gradients inside each step (graph mode: inside the compiled step);
- builds the training loader with ``num_shards=size, shard_id=rank`` (each rank
  ``dataset.batch_size`` samples per step; the same seed, so the shards cover the epoch);
- waits in each collective at most ``dist.timeout`` seconds for the others, then ends
  the job naming the rank that did not arrive (``framework.communication.watch``);
- stops after the same step on every rank when Ctrl-C reaches any of them (the loop's
  interrupt flag is all-reduced at step ends), rank 0 saving the checkpoint;
- checks at start that all ranks have the same config hash, resume checkpoint and
  parameter shapes (:meth:`Rank.check`), one clear line otherwise;
- on rank 0 alone writes checkpoints and the MLflow run (tagged ``world_size``; the
  :class:`DistStats` metrics: throughput summed over ranks, each rank's step time);
  every rank resumes from rank 0's choice of checkpoint, at the same epoch and position
  of its own shard.

Any error after :func:`join` ends every rank (``framework.communication.abort``); ranks
other than 0 print no warnings (each would repeat rank 0's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

import framework as ms
from framework.train.callbacks import Callback
from framework.train.context import RunContext

# set by the --nproc launcher: a folder where each rank writes its pid (to name a dead rank)
RANKS_DIR_ENV = "TWINMODE_DIST_RANKS_DIR"


@dataclass(frozen=True)
class Rank:
    rank: int = 0
    size: int = 1

    @property
    def distributed(self) -> bool:
        return self.size > 1

    @property
    def leader(self) -> bool:
        return self.rank == 0

    def check(self, what: str, value: Any) -> None:
        """Every rank must pass an equal ``value`` (a one-line RankMismatch otherwise)."""
        if self.distributed:
            from framework.communication import check_consistent

            check_consistent(what, value)

    def agree(self, value: Any) -> Any:
        """Rank 0's ``value`` on every rank."""
        if not self.distributed:
            return value
        from framework.communication import broadcast_object

        return broadcast_object(value)


def join(timeout: float | None = None) -> Rank:
    """This process's place in the job: joins MPI's world when an MPI launcher started it
    (several ranks), else one rank of one (nothing is imported or initialized).
    ``timeout``: the collective timeout (``dist.timeout``; None: the environment's)."""
    from framework.communication import launched_by_mpi

    if not launched_by_mpi():
        return Rank()
    from framework.communication import get_group_size, get_rank, init, set_timeout

    set_timeout(timeout, "dist.timeout" if timeout is not None else None)
    try:
        init()
    except ValueError as error:  # a bad TWINMODE_COLLECTIVE_TIMEOUT
        from .config import ConfigError

        raise ConfigError(str(error)) from None
    rank = Rank(get_rank(), get_group_size())
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    if not rank.leader:  # the ranks run the same code: rank 0 alone warns, once for the job
        import warnings

        warnings.simplefilter("ignore")
    folder = os.environ.get(RANKS_DIR_ENV)
    if folder:
        with open(os.path.join(folder, f"{os.getpid()}.rank"), "w") as f:
            f.write(str(rank.rank))
    return rank


def check_shapes(net: Any) -> None:
    """Every rank's network must have the same parameters (names, shapes, dtypes); a
    one-line RankMismatch naming the first that differs otherwise. Collective."""
    from framework.communication import RankMismatch, allgather_object

    mine = [(name, tuple(p.shape), str(p.dtype)) for name, p in net.parameters_and_names()]
    everyone = allgather_object(mine)
    for r, theirs in enumerate(everyone[1:], start=1):
        if theirs == everyone[0]:
            continue
        for i, (a, b) in enumerate(zip(everyone[0], theirs)):
            if a != b:
                raise RankMismatch(f"ranks disagree on the parameter shapes: parameter {i} is {a[0]} "
                                   f"{a[1]} {a[2]} on rank 0 but {b[0]} {b[1]} {b[2]} on rank {r}; start "
                                   "every rank with the same config and code")
        raise RankMismatch(f"ranks disagree on the parameter shapes: rank 0 has {len(everyone[0])} "
                           f"parameters, rank {r} has {len(theirs)}")


class DistStats(Callback):
    """At each epoch's end, every rank's step time, gathered to rank 0's
    ``run_context.metrics``: ``dist/rank<r>_ms_per_step`` (the median wall time of the
    epoch's steps: robust to the first step, when ranks wait for each other's
    compilation) and ``dist/samples_per_second`` (summed over ranks), which the MLflow
    logger records. Collective: every rank runs it at the same epochs."""

    phase = "metrics"  # the epoch's figures of all ranks, before they are logged

    def __init__(self, rank: Rank) -> None:
        self.rank = rank
        self.seconds: list[float] = []
        self.batch = 0

    def on_train_step_end(self, ctx: RunContext) -> None:
        self.seconds.append(ctx.timings.step_wall_seconds)
        self.batch = ctx.batch_size

    def on_train_epoch_end(self, ctx: RunContext) -> None:
        from framework.communication import allgather_object

        median = float(np.median(self.seconds)) if self.seconds else 0.0
        everyone = allgather_object((median, self.batch))
        self.seconds = []
        if not self.rank.leader:
            return
        total = 0.0
        for r, (seconds, batch) in enumerate(everyone):
            if seconds > 0:
                ctx.metrics[f"dist/rank{r}_ms_per_step"] = seconds * 1000
                total += batch / seconds
        if total:
            ctx.metrics["dist/samples_per_second"] = total
            ctx.metrics["dist/world_size"] = float(self.rank.size)


def fail(message: str, code: int) -> None:
    """End every rank of a running job with ``message`` (no-op in a one-rank run). A
    Ctrl-C (130) reaches every rank at once: rank 0 alone says so, one line for the job."""
    from framework.communication import abort, get_rank, is_initialized

    if is_initialized():
        abort(message, code, quiet=code == 130 and get_rank() != 0)
