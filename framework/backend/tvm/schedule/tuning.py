"""Opt-in tuning of the heavy kernels (context key ``tuning``), with a database on disk.

Budget: an int is measured candidates (trials) per heavy task; ``'<N>s'`` is N seconds of
tuning in all. Each heavy task (the kernels holding ``HEAVY_SHARE`` of the FLOPs) spends its
budget in two phases:

1. variants of the default rules (:func:`variants` of :class:`.cpu_rules.Params`), timed
   round-robin against each other so that machine noise hits them alike. Few trials, and
   never worse than the default schedule, which is the first of them;
2. MetaSchedule's evolutionary search for the trials left (its generic space needs hundreds
   of trials to beat the rules on LeNet; with fewer it only adds records that lose).

Candidates are built and timed in this process (``InProcessBuilder``/``InProcessRunner``):
MetaSchedule's ``LocalBuilder`` starts workers that import the CUDA tensor intrinsics (~30 s)
and time out, and its runner needs every candidate exported as a .so. Records (traces and
times) go to a JSON database under ``cache_dir()/tuning/<target key>``, shared by all runs
and processes; ``budget.json`` next to it keeps the trials and seconds spent per workload,
so a second run continues where the first stopped and an exhausted budget tunes nothing.
Applying the database picks each kernel's fastest record.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import logging
import sys
import time
import types
from dataclasses import replace
from pathlib import Path

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.ir.utils import derived_object
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.meta_schedule.builder import BuilderResult, PyBuilder
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback
from tvm.s_tir.meta_schedule.runner import PyRunner
from tvm.s_tir.meta_schedule.runner.local_runner import LocalRunnerFuture

from ...._io import atomic_write
from ..runtime import cache
from ..runtime.cache import cache_dir
from . import cpu_rules
from .cpu_rules import Params

logger = logging.getLogger(__name__)

HEAVY_SHARE = 0.8  # tune the heaviest tasks that together hold this share of the FLOPs
MAX_TASKS = 8
ROUNDS = 5  # timing rounds of the rule variants
TRIALS_PER_ROUND = 8  # MetaSchedule candidates per search round
SECONDS_TRIAL_CAP = 1000  # trials per task under a time budget (the clock ends it first)
# JSONDatabase's files; sealed with checksums after each tuning session (see cache.py)
DATABASE_FILES = ("database_workload.json", "database_tuning_record.json", "budget.json")

def variants(base: Params) -> list[Params]:
    """The default rules first, then the alternatives most often faster on LeNet."""
    def scaled(value: int, factor: float) -> int:
        return max(1, round(value * factor))

    return [base, replace(base, register_vectors=scaled(base.register_vectors, 0.5)),
            replace(base, lane_weights=scaled(base.lane_weights, 0.5)),
            replace(base, register_vectors=scaled(base.register_vectors, 1.5)),
            replace(base, unroll=256), replace(base, chunks_per_core=4),
            replace(base, lane_vectors=scaled(base.lane_vectors, 0.6)), replace(base, unroll=16),
            replace(base, chunks_per_core=16), replace(base, lane_weights=base.lane_weights * 2),
            replace(base, register_vectors=scaled(base.register_vectors, 0.75)),
            replace(base, lane_vectors=scaled(base.lane_vectors, 1.4))]


def database_dir(target: tvm.target.Target) -> Path:
    key = hashlib.sha256(json.dumps([str(target), tvm.__version__]).encode()).hexdigest()[:16]
    return cache_dir() / "tuning" / key


def parse_budget(tuning: int | str) -> tuple[int, float | None]:
    """(trials per task, seconds in all or None) of a ``tuning`` context value."""
    if isinstance(tuning, int):
        return tuning, None
    return SECONDS_TRIAL_CAP, float(str(tuning)[:-1])


def tune_and_apply(mod: tvm.IRModule, target: tvm.target.Target,
                   tuning: int | str) -> tuple[tvm.IRModule, float]:
    """Tune the heavy tasks of a legalized module; return it with the best records applied,
    and the seconds spent measuring candidates (0 when the database already holds the
    budget's trials: finding the tasks and applying the records count as compile time)."""
    start = time.perf_counter()
    trials, seconds = parse_budget(tuning)
    deadline = None if seconds is None else start + seconds
    cores = int(target.attrs.get("num-cores", 1) or 1)
    work_dir = cache.prepare(database_dir(target))
    cache.verify_files(work_dir, DATABASE_FILES, "the tuning database")
    database = ms.database.JSONDatabase(work_dir=str(work_dir))
    spent = _Budget(work_dir / "budget.json")
    tasks = [(task, _key(task)) for task in heavy_tasks(mod, target)]
    if seconds is not None:  # what earlier runs spent on these tasks counts against it
        earlier = sum(spent.seconds(key) for _, key in tasks)
        deadline = start + max(0.0, seconds - earlier)
    measuring = 0.0
    for task, key in tasks:
        if _expired(deadline) or spent.trials(key) >= trials:
            continue
        t0 = time.perf_counter()
        done = _tune_variants(database, task.dispatched[0], target, cores, trials, deadline)
        spent.add(key, done, time.perf_counter() - t0)
        measuring += time.perf_counter() - t0
    todo = [(task, key, trials - spent.trials(key)) for task, key in tasks
            if trials - spent.trials(key) > 0]
    if todo and not _expired(deadline):
        t0 = time.perf_counter()
        before = [_records(database, task.dispatched[0]) for task, _, _ in todo]
        _tune_search(todo, target, database, work_dir, cores, deadline)
        share = (time.perf_counter() - t0) / len(todo)
        for (task, key, _), n in zip(todo, before):  # the trials it measured
            spent.add(key, _records(database, task.dispatched[0]) - n, share)
        measuring += time.perf_counter() - t0
    cache.seal_files(work_dir, DATABASE_FILES)
    with target, database:
        mod = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(mod)
    return mod, measuring


def heavy_tasks(mod: tvm.IRModule, target: tvm.target.Target) -> list:
    """The extracted tasks holding ``HEAVY_SHARE`` of the FLOPs, heaviest first."""
    from tvm.s_tir.analysis import estimate_tir_flops

    tasks = ms.relax_integration.extract_tasks(mod, target)
    flops = []
    for task in tasks:
        try:
            flops.append(float(estimate_tir_flops(task.dispatched[0])) * task.weight)
        except Exception:  # no estimate: not a heavy task
            flops.append(0.0)
    order = sorted(range(len(tasks)), key=lambda i: -flops[i])
    total, chosen, acc = sum(flops) or 1.0, [], 0.0
    for i in order[:MAX_TASKS]:
        if acc >= HEAVY_SHARE * total or flops[i] <= 0:
            break
        chosen.append(tasks[i])
        acc += flops[i]
    return chosen


def _records(database, task_mod: tvm.IRModule) -> int:
    if not database.has_workload(task_mod):
        return 0
    return len(database.get_top_k(database.commit_workload(task_mod), 1 << 30))


def _key(task) -> str:
    return str(tvm_ffi.structural_hash(task.dispatched[0]))


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


class _Budget:
    """Trials and seconds spent per workload, in a JSON file beside the database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.data = json.loads(path.read_text())
        except (OSError, ValueError):
            self.data = {}

    def trials(self, key: str) -> int:
        return int(self.data.get(key, {}).get("trials", 0))

    def seconds(self, key: str) -> float:
        return float(self.data.get(key, {}).get("seconds", 0.0))

    def add(self, key: str, trials: int, seconds: float) -> None:
        entry = self.data.setdefault(key, {"trials": 0, "seconds": 0.0})
        entry["trials"] += int(trials)
        entry["seconds"] += float(seconds)
        atomic_write(self.path, json.dumps(self.data, indent=1).encode())


def _tune_variants(database, task_mod: tvm.IRModule, target, cores: int, trials: int,
                   deadline: float | None) -> int:
    """Build the distinct rule variants (at most ``trials``), time them round-robin, record
    each one's trace with its per-round times. Returns the number of trials used."""
    built, seen = [], set()
    for params in variants(cpu_rules.target_params(target)):
        if len(built) >= trials or _expired(deadline):
            break
        try:
            sch = cpu_rules.schedule(task_mod, cores, params)
            digest = tvm_ffi.structural_hash(sch.mod)
            if digest in seen:
                continue
            seen.add(digest)
            built.append((sch, _compile(sch.mod, target)))
        except Exception as error:  # a variant the rules cannot apply here
            logger.debug("rule variant %s skipped: %s", params, error)
    if not built:
        return 0
    args_info = ms.arg_info.ArgInfo.from_prim_func(task_mod["main"])
    args = _arguments([a.as_json() for a in args_info])
    times: list[list[float]] = [[] for _ in built]
    for round_ in range(ROUNDS):
        if round_ and _expired(deadline):
            break
        for i, (_, rt) in enumerate(built):
            times[i].append(float(np.mean(_time(rt, args, repeat=1))))
    workload = database.commit_workload(task_mod)
    for (sch, _), secs in zip(built, times):
        database.commit_tuning_record(
            ms.database.TuningRecord(sch.trace, workload, secs, target, args_info))
    return len(built)


def _cpu_tensor_intrin() -> None:
    """``TuneContext`` imports ``tvm.s_tir.tensor_intrin``, whose CUDA part parses hundreds
    of TVMScript functions (15-30 s here). Register the package with the x86 intrinsics only
    (0.1 s); its other submodules still import on demand."""
    name = "tvm.s_tir.tensor_intrin"
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    package = types.ModuleType(name)
    package.__path__ = list(spec.submodule_search_locations or [])
    package.__spec__ = spec
    sys.modules[name] = package
    importlib.import_module(f"{name}.x86")


def _tune_search(todo, target, database, work_dir: Path, cores: int,
                 deadline: float | None) -> None:
    """MetaSchedule's evolutionary search over its own design space, ``left`` trials per task."""
    _cpu_tensor_intrin()
    contexts, trials = [], 0
    for i, (task, _, left) in enumerate(todo):
        contexts.append(ms.TuneContext(
            mod=task.dispatched[0], target=target, space_generator="post-order-apply",
            search_strategy=ms.search_strategy.EvolutionarySearch(
                population_size=64, init_min_unmeasured=16, genetic_num_iters=2),
            task_name=task.task_name, rand_state=i + 1, num_threads=cores,
            logger=logger).clone())
        trials = max(trials, left)
    callbacks = [ms.measure_callback.AddToDatabase(), ms.measure_callback.UpdateCostModel()]
    if deadline is not None:
        callbacks.append(_Deadline(deadline))
    ms.tune.tune_tasks(
        tasks=contexts, task_weights=[1.0] * len(contexts), work_dir=str(work_dir),
        max_trials_global=trials * len(contexts), max_trials_per_task=trials,
        num_trials_per_iter=min(TRIALS_PER_ROUND, trials), builder=InProcessBuilder(),
        runner=InProcessRunner(), database=database, measure_callbacks=callbacks,
        cost_model=_cost_model(cores), task_scheduler="round-robin")


def _cost_model(cores: int):
    """XGBoost (the ``xgboost-cpu`` package) guides the search; without it, random order."""
    try:
        import xgboost  # noqa: F401
    except ImportError:
        logger.warning("tuning: xgboost is not installed (pip install xgboost-cpu); "
                       "MetaSchedule searches without a cost model")
        return ms.cost_model.RandomModel()
    return ms.cost_model.XGBModel(num_tuning_cores=cores, num_warmup_samples=16)


def _compile(mod: tvm.IRModule, target) -> tvm.runtime.Module:
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return tvm.compile(mod, target=target).jit()


def _arguments(args_info: list) -> list:
    device = tvm.cpu(0)
    rng = np.random.default_rng(0)
    args = []
    for _, dtype, shape in args_info:
        array = (rng.standard_normal(shape) if "float" in dtype else np.zeros(shape)).astype(dtype)
        args.append(tvm.runtime.tensor(array, device))
    return args


def _time(rt: tvm.runtime.Module, args: list, number: int = 5, repeat: int = 3) -> list[float]:
    evaluator = rt.time_evaluator("main", tvm.cpu(0), number=number, repeat=repeat)
    evaluator(*args)  # warm-up
    return [float(t) for t in evaluator(*args).results]


_BUILT: dict[str, tvm.runtime.Module] = {}


@derived_object
class InProcessBuilder(PyBuilder):
    """Compiles candidates in this process; the 'artifact path' is a key into ``_BUILT``."""

    def build(self, build_inputs: list) -> list:
        results = []
        for build_input in build_inputs:
            try:
                key = f"inprocess/{len(_BUILT)}/{id(build_input)}"
                _BUILT[key] = _compile(build_input.mod, build_input.target)
                results.append(BuilderResult(key, None))
            except Exception as error:
                results.append(BuilderResult(None, f"InProcessBuilder: {error}"))
        return results


@derived_object
class InProcessRunner(PyRunner):
    """Times built candidates in this process, on the runtime's thread pool."""

    def run(self, runner_inputs: list) -> list:
        futures = []
        for runner_input in runner_inputs:
            rt = _BUILT.pop(str(runner_input.artifact_path), None)
            try:
                if rt is None:
                    raise RuntimeError("candidate was not built")
                args = _arguments([a.as_json() for a in runner_input.args_info])
                futures.append(LocalRunnerFuture(res=_time(rt, args)))
            except Exception as error:
                futures.append(LocalRunnerFuture(error_message=f"InProcessRunner: {error}"))
        return futures


@derived_object
class _Deadline(PyMeasureCallback):
    """Ends every task once the time budget is spent."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results,
              runner_results) -> None:
        if time.perf_counter() < self.deadline:
            return
        for i, task in enumerate(task_scheduler.tasks_):
            if not task.is_terminated:
                task_scheduler.terminate_task(i)
