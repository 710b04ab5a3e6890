"""Local worker processes of a sweep: start, share the cores, forward Ctrl-C, judge deaths.

Each worker is ``python -m trainer.sweep.worker JOB`` (:mod:`trainer.sweep.worker`) in its
own process group, with ``cores // workers`` threads (``OMP_NUM_THREADS``,
``TVM_NUM_THREADS``, BLAS): N workers together use the machine once, not N times.

- Ctrl-C reaches only this process; it forwards one SIGINT to every worker, which
  finishes its step, saves a checkpoint, marks its trial interrupted and exits 130.
- If this process is killed (SIGKILL), the kernel kills the workers too
  (``PR_SET_PDEATHSIG``); their trials stay RUNNING until a restarted sweep sees that their
  processes are gone (:meth:`SweepStudy.recover`) and retries them.
- A worker that dies on its own (a native crash) gets its running trial failed *with* an
  ``error`` (so it is not retried forever) and is replaced while trials remain.
- What workers print (warnings, a crash's last words) comes through pipes, one thread per
  stream, to the sweep's view (:class:`trainer.sweep.live.SweepView`), which shows it above
  its table on a terminal; the view reads the study after each poll.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any

from .study import SweepStudy, process_token
from .worker import WorkerJob

THREAD_VARIABLES = ("OMP_NUM_THREADS", "TVM_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# A Ctrl-C while a worker still imports (seconds) is held until the imports are done, then
# ends it cleanly (exit 130) instead of a traceback from the middle of an import.
BOOTSTRAP = """
import signal, sys
held = []
signal.signal(signal.SIGINT, lambda *_: held.append(1))
from trainer.sweep.worker import main
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.exit(130 if held else main(sys.argv[1:]))
"""


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def thread_share(workers: int) -> int:
    return max(1, cores() // max(1, workers))


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _pump(stream: IO[str], err: bool, lines: queue.Queue) -> None:
    for line in stream:
        lines.put((line.rstrip("\n"), err))
    stream.close()


class Worker:
    """One worker process; its stdout and stderr lines go to ``lines`` as ``(text, is_stderr)``."""

    def __init__(self, job: WorkerJob, threads: int, lines: queue.Queue) -> None:
        env = dict(os.environ, **{name: str(threads) for name in THREAD_VARIABLES})
        env["PYTHONUNBUFFERED"] = "1"
        self.job = job
        self.process = subprocess.Popen(
            [sys.executable, "-c", BOOTSTRAP, json.dumps(dataclasses.asdict(job))],
            env=env, process_group=0, preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            errors="replace")
        self.token = process_token(self.process.pid)
        self.readers = [threading.Thread(target=_pump, args=(stream, err, lines), daemon=True)
                        for stream, err in ((self.process.stdout, False), (self.process.stderr, True))]
        for reader in self.readers:
            reader.start()


def _fail_running(study: SweepStudy, token: str, reason: str) -> None:
    from optuna.trial import TrialState

    for t in study.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if t.user_attrs.get("proc") == token:
            study.storage.set_trial_user_attr(t._trial_id, "error", reason)
            study.storage.set_trial_state_values(t._trial_id, TrialState.FAIL)


class _Quiet:
    """A view that shows nothing but what workers print (as it is)."""

    def tick(self) -> None:
        pass

    def note(self, line: str, err: bool = False) -> None:
        print(line, file=sys.stderr if err else sys.stdout, flush=True)


def run_workers(job: WorkerJob, workers: int, study: SweepStudy, view: Any = None) -> int:
    """Run ``workers`` processes until the study is done, showing them in ``view`` (a
    :class:`~trainer.sweep.live.SweepView`); returns 0, 130 (interrupted) or 2."""
    pool = _Pool(job, workers, study, view or _Quiet())
    try:
        pool.supervise()
    except KeyboardInterrupt:
        pool.interrupt()
        return 130
    finally:
        pool.drain(final=True)
    return 2 if pool.bad_input else 0


class _Pool:
    """The worker processes of one sweep: ``workers`` of them, each replaced when it dies on
    its own while the study still lacks trials."""

    def __init__(self, job: WorkerJob, workers: int, study: SweepStudy, view: Any) -> None:
        self.job, self.workers, self.study, self.view = job, workers, study, view
        self.threads = thread_share(workers)
        self.lines: queue.Queue = queue.Queue()
        self.running = [Worker(dataclasses.replace(job, index=i, workers=workers), self.threads, self.lines)
                        for i in range(workers)]
        self.ended: list[Worker] = []
        self.bad_input = False  # a worker exited with status 2

    def supervise(self) -> None:
        """Poll the workers until every one has exited, showing the trials after each poll."""
        while self.running:
            time.sleep(0.5)
            for worker in list(self.running):
                code = worker.process.poll()
                if code is None:
                    continue
                self.running.remove(worker)
                self.ended.append(worker)
                if code == 2:
                    self.bad_input = True
                elif code not in (0, 130):
                    self._after_death(worker, code)
            self.drain()
            self.view.tick()

    def drain(self, final: bool = False) -> None:
        """Show the lines the workers printed; ``final``: all of them, once every worker is gone."""
        if final:
            for worker in self.running + self.ended:
                for reader in worker.readers:
                    reader.join(timeout=5)
        while True:
            try:
                line, err = self.lines.get_nowait()
            except queue.Empty:
                return
            self.view.note(line, err)

    def _after_death(self, worker: Worker, code: int) -> None:
        """Fail the dead worker's running trial with the reason, and start a worker in its
        place (the next index of its slot) while the study still lacks trials."""
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        _fail_running(self.study, worker.token, f"its worker process died ({how})")
        if self.study.census().counted < self.job.trials:
            replacement = dataclasses.replace(worker.job, index=worker.job.index + self.workers)
            self.running.append(Worker(replacement, self.threads, self.lines))  # (keeps the worker count)

    def interrupt(self) -> None:
        """Ctrl-C: one SIGINT to each running worker, then wait for them to save and exit; a
        second Ctrl-C kills them."""
        for worker in self.running:
            if worker.process.poll() is None:
                worker.process.send_signal(signal.SIGINT)
        self.view.note("interrupt: each worker finishes its step and saves; press Ctrl-C again to abort",
                       err=True)
        try:
            while any(worker.process.poll() is None for worker in self.running):
                time.sleep(0.5)
                self.drain()
                self.view.tick()
        except KeyboardInterrupt:
            for worker in self.running:
                worker.process.kill()
            for worker in self.running:
                worker.process.wait()
