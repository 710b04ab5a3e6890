"""The training loop shared by both modes (the step object is the only mode-specific part).

Ctrl-C (SIGINT) during training is deferred to the end of the running step: the
loop then finishes the step's callbacks, calls ``on_train_end`` (ModelCheckpoint saves
the step's state there) and raises :class:`TrainingInterrupted`, a ``SystemExit`` with
code 130, so a script ends without a traceback and the run resumes exactly with
``resume_from="last"``. A second Ctrl-C aborts at once, without saving: Python runs a
signal handler only between bytecodes, so two Ctrl-Cs during one native call (a
graph-mode compile, a compiled step) would reach it as one; the guard therefore also
counts SIGINTs as the C-level handler sees them (``signal.set_wakeup_fd``), in a thread
that ends the process with status 130 at the second one, whatever the main thread is in.

An epoch that is cut short (``request_stop`` or Ctrl-C before its last step) gets no
``on_train_epoch_end`` (and no validation): the epoch has not ended, and a resume
finishes it. A stop or interrupt at its last step still runs the epoch end.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from .callbacks.base import CallbackList
from .context import RunContext


class TrainingInterrupted(SystemExit):
    """Training stopped by Ctrl-C after saving; ``checkpoint`` is the file written (or None)."""

    def __init__(self, message: str, checkpoint: str | None, global_step: int) -> None:
        super().__init__(130)
        self.message = message
        self.checkpoint = checkpoint
        self.global_step = global_step

    def __str__(self) -> str:
        return self.message


class InterruptGuard:
    """Turns the first SIGINT into a flag checked at step boundaries (main thread only).

    One rank of a data-parallel job (``framework.communication`` initialized, several
    ranks): :meth:`stop` all-reduces the flag, so every rank stops after the same step
    even when the signal reaches them at different moments (collective: every rank calls
    it at each step end and epoch start); rank 0 alone prints."""

    def __init__(self) -> None:
        self.requested = False
        self.installed = False
        self._previous: Any = None
        self.ranks, self.leader = _world()
        self.agreed = False  # the flag at the last stop() of a job: what every rank saw

    def stop(self) -> bool:
        """Whether training stops here (Ctrl-C on this rank, or on any rank of the job)."""
        if self.ranks > 1:
            import numpy as np

            from framework.communication import allreduce_array

            flag = allreduce_array(np.array([int(self.requested)], np.int32), op="max")
            self.requested = self.agreed = bool(flag[0])
        return self.requested

    def __enter__(self) -> InterruptGuard:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._watch_signals()
            self.installed = True
        return self

    def _watch_signals(self) -> None:
        """Count SIGINTs at the C level (every delivery writes its number to the wakeup
        socket, even while the main thread is in native code); abort at the second."""
        self._reader, writer = socket.socketpair()
        writer.setblocking(False)
        self._writer = writer
        self._previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._count, args=(self._reader,), name="sigint-watch",
                         daemon=True).start()

    def _count(self, reader: socket.socket) -> None:
        seen = 0
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            seen += data.count(bytes([signal.SIGINT]))
            if seen >= 2:
                _abort()

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            _abort()
        self.requested = True
        if not self.leader:
            return
        with _PRINTING:  # never after the abort's line (the watch thread may abort first)
            print("\ninterrupt: finishing the current step, then saving a checkpoint "
                  "(press Ctrl-C again to abort without saving)", file=sys.stderr, flush=True)

    def __exit__(self, *exc: Any) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, self._previous if self._previous is not None else signal.SIG_DFL)
            signal.set_wakeup_fd(self._previous_fd)
            self._writer.close()
            self._reader.close()
            self.installed = False


_PRINTING = threading.Lock()  # held for good by _abort: its line is the last one


def _abort() -> None:
    """The second Ctrl-C: one line, then exit 130 at once (no saving, no cleanup; files
    already written stay whole, every write being atomic)."""
    _PRINTING.acquire()
    if _world()[1]:
        print("\ninterrupt: aborted without saving (second Ctrl-C)", file=sys.stderr, flush=True)
    os._exit(130)


def _world() -> tuple[int, bool]:
    """(ranks, this is rank 0) of the data-parallel job this process is in, else (1, True)."""
    comm = sys.modules.get("framework.communication")
    if comm is None or not comm.is_initialized():
        return 1, True
    return comm.get_group_size(), comm.get_rank() == 0


def dataset_size(dataset: Any) -> int | None:
    """Batches per epoch: ``get_dataset_size()`` (framework.dataset), ``len()``, or None."""
    if hasattr(dataset, "get_dataset_size"):
        return int(dataset.get_dataset_size())
    return len(dataset) if hasattr(dataset, "__len__") else None


def iterate(dataset: Iterable[Any]) -> Iterator[Any]:
    """One pass of ``(x, y)`` NumPy batches: a ``framework.dataset`` pipeline through its
    NumPy tuple iterator (it must have two columns), anything else through ``iter``."""
    make = getattr(dataset, "create_tuple_iterator", None)
    if make is None:
        return iter(dataset)
    return _pairs(make(num_epochs=1, output_numpy=True), dataset)


def _pairs(rows: Iterator[Any], dataset: Any) -> Iterator[Any]:
    for row in rows:
        if len(row) != 2:
            names = getattr(dataset, "column_names", "?")
            raise ValueError(f"Model: the dataset gives {len(row)} columns {names}, but training and "
                             "evaluation take (data, label); select two with dataset.project([...])")
        yield row


def epoch_batches(dataset: Iterable[Any], skip: int) -> Iterator[Any]:
    """The dataset's batches for one epoch, skipping ``skip`` when it cannot seek itself."""
    iterator = iterate(dataset)
    if skip and not hasattr(dataset, "load_state_dict"):
        for _ in range(skip):  # a plain re-iterable: exact only if it repeats its order
            if next(iterator, None) is None:
                return
    yield from iterator


def data_position(dataset: Any, epoch_index: int, step: int) -> dict[str, Any]:
    if hasattr(dataset, "state_dict"):
        return dict(dataset.state_dict())
    return {"epoch": epoch_index, "position": step}


def _valid_due(valid_frequency: int | Iterable[int], epoch: int) -> bool:
    if isinstance(valid_frequency, int):
        return valid_frequency > 0 and epoch % valid_frequency == 0
    return epoch in set(valid_frequency)


def run_training(model: Any, ctx: RunContext, cbs: CallbackList, epochs: int, dataset: Any,
                 start: tuple[int, int], valid_dataset: Any = None,
                 valid_frequency: int | Iterable[int] = 1) -> RunContext:
    """Run epochs ``start[0] .. epochs-1``, the first from step ``start[1]``."""
    step_fn = model._step_for(model.train_network, ctx.mode)
    timings = ctx.timings
    train_start = time.perf_counter()
    with InterruptGuard() as guard:
        run = _TrainingRun(model, ctx, cbs, step_fn, guard, dataset, valid_dataset, valid_frequency)
        run.run_epochs(epochs, start)
        timings.train_seconds = time.perf_counter() - train_start
        # several ranks: a Ctrl-C after the last agreement came too late for all to see it
        ctx.interrupted = guard.agreed if guard.ranks > 1 else guard.requested
        cbs.on_train_end(ctx)
    if ctx.interrupted:
        raise _interruption(ctx, guard.leader)
    return ctx


def _interruption(ctx: RunContext, leader: bool) -> TrainingInterrupted:
    """The :class:`TrainingInterrupted` of a run stopped by Ctrl-C (rank 0 prints its line)."""
    where = f"epoch {ctx.epoch}, step {ctx.step} (global step {ctx.global_step})"
    saved = ctx.latest_checkpoint if ctx.latest_checkpoint_step == ctx.global_step else None
    # how to continue, in the caller's terms (a command line sets ``Model.resume_hint``)
    hint = getattr(ctx.model, "resume_hint", None) or "resume_from='last'"
    note = (f"checkpoint saved to {saved}; continue with {hint}" if saved
            else "nothing was saved (no ModelCheckpoint callback)")
    message = f"training interrupted at {where}; {note}"
    if leader:  # rank 0 saved; the job's one line
        print(message, file=sys.stderr, flush=True)
    return TrainingInterrupted(message, saved, ctx.global_step)


class _TrainingRun:
    """The epochs and steps of one :func:`run_training` call, from ``on_train_begin`` up
    to (not including) ``on_train_end``: the state its helpers share."""

    def __init__(self, model: Any, ctx: RunContext, cbs: CallbackList, step_fn: Any,
                 guard: InterruptGuard, dataset: Any, valid_dataset: Any,
                 valid_frequency: int | Iterable[int]) -> None:
        self.model, self.ctx, self.cbs, self.step_fn, self.guard = model, ctx, cbs, step_fn, guard
        self.dataset, self.valid_dataset, self.valid_frequency = dataset, valid_dataset, valid_frequency
        self.timings = ctx.timings
        self.in_step = False  # inside the step function: a KeyboardInterrupt there re-raises
        self.epoch_start = self.last_end = 0.0

    def stopping(self) -> bool:
        """Whether to stop here: Ctrl-C (collective: every rank asks at the same points) or
        ``request_stop``."""
        return self.guard.stop() or self.ctx.stop_requested

    def run_epochs(self, epochs: int, start: tuple[int, int]) -> None:
        """``on_train_begin``, then the epochs until the last, a stop or a Ctrl-C. A
        KeyboardInterrupt between steps without a handler (not the main thread) counts as
        the first Ctrl-C; one mid-step (state half-updated) or a second one propagates."""
        try:
            self.cbs.on_train_begin(self.ctx)
            epoch_index, skip = start
            while epoch_index < epochs and not self.stopping():
                if not self.run_epoch(epoch_index, skip):
                    break  # stopped or interrupted mid-epoch: no epoch end (a resume redoes it)
                epoch_index, skip = epoch_index + 1, 0
        except KeyboardInterrupt:
            if self.in_step or self.guard.installed:
                raise
            self.guard.requested = True

    def run_epoch(self, epoch_index: int, skip: int) -> bool:
        """One epoch from step ``skip``; whether it completed (and so got its epoch end)."""
        self.begin_epoch(epoch_index, skip)
        complete = self.run_steps(epoch_index, skip)
        ctx = self.ctx
        if ctx.steps_per_epoch is not None and ctx.step >= ctx.steps_per_epoch:
            complete = True
        if complete:
            self.end_epoch()
        return complete

    def begin_epoch(self, epoch_index: int, skip: int) -> None:
        """Position the context, reset the epoch's figures, call ``on_train_epoch_begin``."""
        ctx, timings = self.ctx, self.timings
        ctx.epoch, ctx.step = epoch_index + 1, skip
        if skip == 0:
            ctx.epoch_loss_sum, ctx.epoch_loss_count = 0.0, 0
        ctx.metrics = {}
        timings.epoch_step_seconds = timings.epoch_compile_seconds = 0.0
        timings.epoch_steps_run = timings.epoch_samples = 0
        timings.epoch_wall_seconds = 0.0
        self.epoch_start = time.perf_counter()
        self.cbs.on_train_epoch_begin(ctx)
        self.last_end = time.perf_counter()

    def run_steps(self, epoch_index: int, skip: int) -> bool:
        """The epoch's steps; False when a stop or Ctrl-C ended them before the data ran out."""
        for x, y in epoch_batches(self.dataset, skip):
            self.run_step(x, y, epoch_index)
            if self.stopping():
                return False
        return True  # the data ran out: the epoch is complete

    def run_step(self, x: Any, y: Any, epoch_index: int) -> None:
        """One training step between ``on_train_step_begin`` and ``on_train_step_end``."""
        ctx = self.ctx
        ctx.batch_size = len(y)
        self.cbs.on_train_step_begin(ctx)
        self.in_step = True
        out, timing = self.step_fn(x, y)
        ctx.net_outputs = out
        loss = float(self.model.train_loss(out).asnumpy())  # (loss, overflow, scale): amp
        self.in_step = False
        self.record_step(loss, epoch_index)
        self.record_timing(timing)
        self.cbs.on_train_step_end(ctx)

    def record_step(self, loss: float, epoch_index: int) -> None:
        """Count the step and its loss; note the data's position after it."""
        ctx = self.ctx
        ctx.step += 1
        ctx.global_step += 1
        ctx.loss = loss
        ctx.data_state = data_position(self.dataset, epoch_index, ctx.step)
        ctx.epoch_loss_sum += loss
        ctx.epoch_loss_count += 1
        ctx.metrics["loss"] = ctx.epoch_loss_sum / ctx.epoch_loss_count

    def record_timing(self, timing: Any) -> None:
        """The step's timings, and its wall clock since the previous step ended."""
        timings = self.timings
        timings.step_seconds = timing.seconds
        timings.compile_seconds = timing.compile_seconds
        timings.compile_cache_hit = timing.cache_hit
        timings.compile_stages = timing.stages
        if timing.compile_seconds and timings.first_compile_seconds is None:
            timings.first_compile_seconds = timing.compile_seconds
        timings.epoch_step_seconds += timing.seconds
        timings.epoch_steps_run += 1
        timings.epoch_compile_seconds += timing.compile_seconds
        now = time.perf_counter()
        timings.step_wall_seconds = max(now - self.last_end - timing.compile_seconds, 0.0)
        timings.epoch_wall_seconds += timings.step_wall_seconds
        timings.epoch_samples += self.ctx.batch_size
        self.last_end = now

    def end_epoch(self) -> None:
        """A completed epoch: its length, the validation when due, ``on_train_epoch_end``."""
        ctx = self.ctx
        if ctx.steps_per_epoch is None:
            ctx.steps_per_epoch = ctx.step
        if self.valid_dataset is not None and _valid_due(self.valid_frequency, ctx.epoch):
            results = self.model._evaluate(self.valid_dataset, self.cbs, ctx)
            ctx.metrics.update({f"eval_{k}": v for k, v in results.items()})
        self.timings.epoch_seconds = time.perf_counter() - self.epoch_start
        self.cbs.on_train_epoch_end(ctx)
