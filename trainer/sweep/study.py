"""The Optuna study behind a sweep: storage, sampler, pruner, and who owns which trial.

Contract between the processes working on one study (on one machine or many):

- A trial that runs carries user attrs ``proc`` (``host:pid:start-time`` of its process)
  and, when it ends badly, ``error`` (a crash of the trial itself: counted, not retried).
- A ``FAIL`` trial without ``error`` was *interrupted* (Ctrl-C, SIGKILL, a lost heartbeat):
  it does not count; its params are enqueued once more (user attr ``retry_of``), so a grid
  keeps every point and a restarted sweep reaches the requested count without duplicates.
- A trial is *counted* when it is ``COMPLETE``, ``PRUNED`` or ``FAIL`` with ``error``.
- ``surplus`` marks a trial asked when the study already had enough (a race between
  machines): it fails at once, is not counted and not retried.

On this machine, asking for a trial happens under a file lock (no overshoot between local
workers), and a ``RUNNING`` trial whose process is gone is failed as interrupted at once;
on other machines the RDB heartbeat (``HEARTBEAT_S``/``GRACE_S``) does the same, later.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from framework.train.run_lock import RunLock, shared_lock_path

from . import space
from .spec import SweepSpec

HEARTBEAT_S = 20
GRACE_S = 90
PRUNERS = ("none", "median", "hyperband")
SAMPLERS = ("tpe", "random", "grid")


class StudyError(ValueError):
    """A study or option that does not fit (the CLI exits with status 2)."""


def process_token(pid: int | None = None) -> str:
    """``host:pid:start-time``: names a process uniquely on this machine (pids are reused)."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}"


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return "Z" if fields[0] in "ZX" else fields[19]
    except (OSError, IndexError):
        return "?"


def local_process_gone(token: str) -> bool:
    """Whether ``token`` names a process of this machine that no longer runs."""
    host, _, rest = token.partition(":")
    pid, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    now = _start_time(int(pid))
    if now == "?":
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False
    return now != "Z" and now != start  # a zombie is reaped (and judged) by its parent


def storage_url(url: str | None) -> str:
    """``--storage`` as given, else SQLite ``sweeps.db`` in the working directory (absolute)."""
    return url or f"sqlite:///{os.path.abspath('sweeps.db')}"


def quiet_optuna() -> None:
    """Optuna's log lines and its notes on experimental features (heartbeats, matplotlib plots)
    are not for a sweep's user; our own lines say what happens."""
    import warnings

    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used")


def open_storage(url: str) -> Any:
    import optuna

    quiet_optuna()
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"timeout": 120}  # several workers write one file
    try:
        return optuna.storages.RDBStorage(url, engine_kwargs=kwargs, heartbeat_interval=HEARTBEAT_S,
                                          grace_period=GRACE_S)
    except Exception as error:  # noqa: BLE001 - any driver or URL failure is bad input
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise StudyError(f"--storage {url}: cannot open the study database ({first}); use "
                         "sqlite:///sweeps.db or postgresql://user:password@host/db "
                         "(pip install psycopg2-binary)") from None


def parse_pruner(text: str, epochs: int) -> Any:
    """``none``, ``median``, ``hyperband``, or one with Optuna's options: ``median(n_startup_trials=2)``."""
    import optuna

    match = space._CALL.match(text) if "(" in text else None
    name = (match.group(1) if match else text).strip().lower()
    if name not in PRUNERS:
        raise StudyError(f"--pruner: unknown pruner '{text}'; use none, median or hyperband, "
                         "optionally with options: median(n_startup_trials=2)")
    kwargs: dict[str, Any] = {}
    for part in space.split_top_level(match.group(2)) if match and match.group(2).strip() else []:
        key, eq, value = part.partition("=")
        if not eq:
            raise StudyError(f"--pruner {text}: options are key=value, e.g. median(n_startup_trials=2)")
        kwargs[key.strip()] = space._scalar(value)
    classes = {"none": optuna.pruners.NopPruner, "median": optuna.pruners.MedianPruner,
               "hyperband": optuna.pruners.HyperbandPruner}
    if name == "hyperband":
        kwargs.setdefault("min_resource", 1)
        kwargs.setdefault("max_resource", epochs)
    try:
        return classes[name](**kwargs)
    except (TypeError, ValueError) as error:
        raise StudyError(f"--pruner {text}: {error}") from None


def make_sampler(name: str, spec: SweepSpec, seed: int | None, parallel: bool) -> Any:
    import optuna

    if name == "grid":
        if not spec.is_grid:
            ranges = [f"{k}={d.text()}" for k, d in spec.dims.items() if not isinstance(d, space.Choice)]
            raise StudyError(f"--sampler grid needs lists of values; {', '.join(ranges)} is a range "
                             "(use --sampler tpe or random, or give values: KEY=V1,V2)")
        return optuna.samplers.RandomSampler(seed=seed)  # grid points are enqueued in order
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed, constant_liar=parallel)


def default_study_name(spec: SweepSpec, experiment: str, metric: str, direction: str,
                       sampler: str) -> str:
    return f"{experiment}-sweep-{spec.fingerprint(metric, direction, sampler)}"


@dataclass
class Census:
    counted: int
    running: int
    waiting: int
    best: Any = None


class SweepStudy:
    """One Optuna study on a storage, with the counting and ownership rules above."""

    def __init__(self, url: str, name: str, direction: str, sampler: Any, pruner: Any) -> None:
        import optuna

        quiet_optuna()
        self.url, self.name = url, name
        self.storage = open_storage(url)
        self.study = optuna.create_study(storage=self.storage, study_name=name, direction=direction,
                                         sampler=sampler, pruner=pruner, load_if_exists=True)
        if self.study.direction.name.lower() != direction:
            raise StudyError(f"study '{name}' in {url} was created to {self.study.direction.name.lower()}, "
                             f"not {direction}; use another --study or the same --direction")
        key = hashlib.sha256(f"{url}\0{name}".encode()).hexdigest()[:16]
        self._lock = RunLock(shared_lock_path(f"sweep-{key}"))

    # -- study-level records ------------------------------------------------------------------
    def attr(self, key: str, default: Any = None) -> Any:
        return self.study.user_attrs.get(key, default)

    def set_attr(self, key: str, value: Any) -> None:
        self.study.set_user_attr(key, value)

    def locked(self) -> RunLock:
        """The lock that serializes asking, enqueueing and parent-run creation on this machine."""
        return self._lock

    def check_same_search(self, record: dict[str, Any]) -> None:
        """A study keeps one search; a different space or metric under the same name is an error."""
        with_lock(self._lock, lambda: self._check_same(record))

    def _check_same(self, record: dict[str, Any]) -> None:
        stored = self.attr("twinmode.search")
        if stored is None:
            self.set_attr("twinmode.search", record)
        elif stored != record:
            diff = [k for k in record if stored.get(k) != record.get(k)]
            raise StudyError(f"study '{self.name}' in {self.url} holds another search ({', '.join(diff)} "
                             f"differ: was {', '.join(f'{k}={stored.get(k)}' for k in diff)}); "
                             "use another --study or the command that created it")

    # -- trials -------------------------------------------------------------------------------
    def census(self) -> Census:
        from optuna.trial import TrialState

        counted = running = waiting = 0
        for t in self.study.get_trials(deepcopy=False):
            if t.state in (TrialState.COMPLETE, TrialState.PRUNED) or (
                    t.state == TrialState.FAIL and "error" in t.user_attrs):
                counted += 1
            elif t.state == TrialState.RUNNING:
                running += 1
            elif t.state == TrialState.WAITING:
                waiting += 1
        return Census(counted, running, waiting)

    def recover(self, locked: bool = False) -> list[int]:
        """Fail trials whose process is gone (this machine now, others by heartbeat) and enqueue
        the params of every interrupted trial not yet retried; returns the failed numbers.
        ``locked``: the caller holds the study lock, under which every trial is created and
        given its ``proc`` token, so a running trial without one lost its process in between
        (a kill inside ``ask``) and is failed too."""
        import optuna
        from optuna.trial import TrialState

        optuna.storages.fail_stale_trials(self.study)
        failed = []
        trials = self.study.get_trials(deepcopy=False)
        for t in trials:
            token = t.user_attrs.get("proc")
            gone = local_process_gone(token) if token else locked
            if t.state == TrialState.RUNNING and gone:
                self.storage.set_trial_user_attr(t._trial_id, "interrupted",
                                                 f"its process ({token or 'unknown'}) stopped")
                try:
                    self.storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
                    failed.append(t.number)
                except optuna.exceptions.UpdateFinishedTrialError:
                    pass
        trials = self.study.get_trials(deepcopy=False)
        retried = {t.user_attrs.get("retry_of") for t in trials}
        for t in trials:
            # killed before its params were suggested: an enqueued (grid) point still has them
            # as Optuna's fixed params; without, the sampler draws afresh
            params = t.params or t.system_attrs.get("fixed_params")
            if (t.state == TrialState.FAIL and "error" not in t.user_attrs and "surplus" not in t.user_attrs
                    and params and t.number not in retried):
                root = t.user_attrs.get("retry_of", t.number)
                self.study.enqueue_trial(dict(params), user_attrs={"retry_of": t.number,
                                                                   "first_try": root})
        return failed

    def enqueue_grid(self, points: list[dict[str, Any]]) -> None:
        """Enqueue every grid point once, in order (only into a study without trials)."""
        if not self.study.get_trials(deepcopy=False):
            for point in points:
                self.study.enqueue_trial(point)

    def ask(self, target: int, spec: SweepSpec) -> Any | None:
        """A new trial with its params suggested, or None when ``target`` trials are counted or
        running. Waits (polling) while running trials could still fail and need a retry."""
        while True:
            trial = with_lock(self._lock, lambda: self._ask_locked(target, spec))
            if trial != "wait":
                return trial
            time.sleep(1.0)

    def _ask_locked(self, target: int, spec: SweepSpec) -> Any:
        self.recover(locked=True)
        census = self.census()
        if census.counted >= target:
            return None
        if census.counted + census.running >= target:
            return "wait"
        trial = self.study.ask()
        trial.set_user_attr("proc", process_token())
        for key, dim in spec.dims.items():
            _suggest(trial, key, dim)
        if self._surplus(trial.number, target):
            trial.set_user_attr("surplus", "the study already had the requested trials")
            self.study.tell(trial, state=_fail_state())
            return "wait"
        return trial

    def _surplus(self, number: int, target: int) -> bool:
        from optuna.trial import TrialState

        before = 0
        for t in self.study.get_trials(deepcopy=False):
            if t.number >= number or t.state == TrialState.WAITING:
                continue
            if t.state == TrialState.FAIL and "error" not in t.user_attrs:
                continue
            before += 1
        return before >= target


def _fail_state() -> Any:
    from optuna.trial import TrialState

    return TrialState.FAIL


def _suggest(trial: Any, key: str, dim: space.Dimension) -> Any:
    if isinstance(dim, space.Choice):
        return trial.suggest_categorical(key, list(dict.fromkeys(dim.values)))
    if isinstance(dim, space.Float):
        return trial.suggest_float(key, dim.low, dim.high, log=dim.log, step=dim.step)
    return trial.suggest_int(key, dim.low, dim.high, log=dim.log, step=dim.step)


def with_lock(lock: RunLock, action: Any) -> Any:
    lock.acquire(block=True)
    try:
        return action()
    finally:
        lock.release()
