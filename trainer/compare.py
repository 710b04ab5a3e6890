"""``train compare``: the same experiment in several modes, side by side, with a verdict.

Each mode trains from the same seed as a nested MLflow run under one parent run. Then:

- **speed** (:func:`time_steps`): training steps of every mode timed in interleaved
  rounds after warm-up (compilation included in the warm-up), each step's wall-clock
  time from the end of the previous one (data loading included, as every speed figure of
  the trainer); reported as the median ± half the interquartile range, with N;
- **parity** (:func:`parity`): per-step training losses against the first mode; a step
  differs when ``|a - b| > atol + rtol * |a|``. The verdict is PASS when none of the
  first N steps differs; the first differing step over the whole run and the largest
  difference within the first N are reported with N and the tolerance;
- **final loss** is the test-set loss after training (with the test accuracy), per mode.

The report, its notes (noisy timings, a PASS next to a gap) and the parent MLflow run's
record are trainer/compare_report.py's; the report ends with the parent run's URL and the
path of its figure. When the verdict is FAIL between graph and pynative, the parity bisect
(trainer/parity_bisect.py) reruns both in lockstep to the first step out of tolerance and
names the first IR node beyond float rounding there (lines under the parity verdict); a
PASS costs nothing more.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from framework.train.loop import iterate

from .build import build_model_for
from .compare_report import fit, log_parent, notes, table, text_table
from .config import ExperimentConfig
from .distributed import Rank
from .executor import RunResult
from .experiment import run_experiment
from .tasks import task_of

RTOL, ATOL, PARITY_STEPS = 1e-3, 1e-5, 50


@dataclass
class Timing:
    mode: str
    seconds: list[float]

    @property
    def median_ms(self) -> float:
        return float(np.median(self.seconds)) * 1000

    @property
    def spread_ms(self) -> float:
        """Half the interquartile range."""
        q1, q3 = np.percentile(self.seconds, [25, 75])
        return float(q3 - q1) / 2 * 1000


@dataclass
class Parity:
    n: int  # steps the verdict covers (the first N shared steps)
    rtol: float
    atol: float
    max_abs: float  # largest |difference| within the first n steps
    max_abs_step: int | None
    first_diff_step: int | None  # first step over the tolerance, over all shared steps
    shared: int

    @property
    def passed(self) -> bool:
        return self.first_diff_step is None or self.first_diff_step > self.n

    def text(self, modes: list[str]) -> str:
        where = f" (step {self.max_abs_step})" if self.max_abs_step else ""
        first = (f"first step beyond it: {self.first_diff_step} of {self.shared}"
                 if self.first_diff_step else f"no step of {self.shared} beyond it")
        return (f"parity {' vs '.join(modes)}: {'PASS' if self.passed else 'FAIL'} - first N={self.n} "
                f"steps within |diff| <= {self.atol:g} + {self.rtol:g}*|loss|: largest |diff| "
                f"{self.max_abs:.3g}{where}; {first}")


def parity(results: list[RunResult], rtol: float = RTOL, atol: float = ATOL,
           n: int = PARITY_STEPS) -> Parity:
    """Per-step losses of every mode against the first one (steps they share)."""
    base = results[0]
    worst, worst_step, first, shared = 0.0, None, None, None
    for other in results[1:]:
        k = min(len(base.losses), len(other.losses))
        shared = k if shared is None else min(shared, k)
        a, b = np.asarray(base.losses[:k]), np.asarray(other.losses[:k])
        diff = np.abs(a - b)
        over = np.flatnonzero(~(diff <= atol + rtol * np.abs(a)))  # NaN counts as differing
        if over.size:
            step = base.steps[over[0]]
            first = step if first is None else min(first, step)
        head = diff[:n]
        if head.size and float(np.nanmax(head)) >= worst:
            worst, worst_step = float(np.nanmax(head)), base.steps[int(np.nanargmax(head))]
    shared = shared or 0
    return Parity(min(n, shared), rtol, atol, worst, worst_step, first, shared)


def time_steps(config: ExperimentConfig, modes: list[str], rounds: int = 5, steps: int = 20,
               warmup: int = 3, show: bool = True) -> dict[str, Timing]:
    """Wall-clock training-step times per mode, the modes interleaved round by round (the
    order alternating), after ``warmup`` steps each."""
    import framework as ms

    ms.set_context(save_graphs=False, device_target="GPU" if config.device == "cuda" else "CPU")
    data = task_of(config).data(config, Rank())
    runners = {}
    for mode in modes:
        model, _ = build_model_for(config, data)
        model.mode = mode
        step = model._step_for(model.train_network, mode)
        model.train_network.set_train(True)
        runners[mode] = (step, itertools.cycle(iterate(data.train)))  # a pipeline too
    out = {mode: Timing(mode, []) for mode in modes}
    total = len(modes) * (warmup + rounds * steps)
    with tqdm(total=total, desc="compare: timing steps", unit="step", leave=False, file=sys.stderr,
              dynamic_ncols=True, disable=None) as bar:
        for mode in modes:
            _run(runners[mode], warmup, None, bar)
        for r in range(rounds):
            for mode in (modes if r % 2 == 0 else modes[::-1]):
                _run(runners[mode], steps, out[mode].seconds, bar)
    return out


def _run(runner: tuple[Any, Any], steps: int, into: list[float] | None, bar: Any) -> None:
    step, batches = runner
    last = time.perf_counter()
    for _ in range(steps):
        x, y = next(batches)
        out, _ = step(x, y)
        float(out.asnumpy())
        now = time.perf_counter()
        if into is not None:
            into.append(now - last)
        last = now
        bar.update(1)


def describe(config: ExperimentConfig) -> str:
    d, o = config.dataset, config.optimizer
    from .data import describe_source

    model = config.model.class_ or config.model.name
    if config.task == "language_model":
        return (f"{config.name}: {model} on {d.name} (block {d.block_size}), batch {d.batch_size}, "
                f"{o.name} lr {o.learning_rate:g}, {config.train.max_steps} steps, seed {config.seed}, "
                f"{config.device}")
    return (f"{config.name}: {model} on {describe_source(config)} (limit {d.limit or 'all'}), batch "
            f"{d.batch_size}, {o.name} lr {o.learning_rate:g}, {config.train.epochs} epoch(s), "
            f"seed {config.seed}, {config.device}")


def compare_modes(config: ExperimentConfig, modes: list[str], *, rounds: int = 5, steps: int = 20,
                  rtol: float = RTOL, atol: float = ATOL, parity_steps: int = PARITY_STEPS,
                  source: str | None = None) -> str:
    """Train and time ``modes`` of ``config``; the report (``source``: the experiment file,
    the runs' ``mlflow.source.name``)."""
    from .mlflow_logger import MLflowRun, git_commit, tracking_uri, versions
    from .run_names import default_run_name

    parent = MLflowRun(tracking_uri(config.mlflow.tracking_uri), config.mlflow.experiment,
                       config.mlflow.run_name or default_run_name(dataclasses.replace(config, mode="compare"),
                                                                  source),
                       system_metrics=config.mlflow.system_metrics)
    parent.log_params(config.flat())
    parent.set_tags({"compare_modes": ",".join(modes), "git_commit": git_commit(),
                     "experiment": config.name, **versions()})
    results = []
    status = "FAILED"
    try:
        for i, mode in enumerate(modes):
            tqdm.write(f"compare: training {mode} ({i + 1}/{len(modes)})", file=sys.stderr)
            run_config = dataclasses.replace(config, mode=mode)
            results.append(run_experiment(
                run_config, quiet=True, progress=mode, parent_run_id=parent.run_id,
                run_name=f"{config.mlflow.run_name}-{mode}" if config.mlflow.run_name else None,
                source=source, log_model=False))  # runs that time the modes: no LoggedModel
        tqdm.write(f"compare: timing {rounds} x {steps} steps per mode, interleaved", file=sys.stderr)
        timings = time_steps(config, modes, rounds, steps)
        rows = table(results, timings, config.dataset.batch_size, config.task)
        check = parity(results, rtol, atol, parity_steps) if len(results) > 1 else None
        found, found_lines = bisect(config, modes, check, rtol, atol)
        lines = [text_table(rows, config.task), *([check.text(modes)] if check else []), *found_lines,
                 *notes(results, timings, check, config.task)]
        report = "\n".join(fit(lines))
        log_parent(parent, results, timings, check or Parity(0, RTOL, ATOL, 0.0, None, None, 0), rows,
                   report, describe(config), config.task, bisect=found)
        status = "FINISHED"
    finally:
        parent.end(status)
    return "\n".join([report, *where(parent)])


def bisect(config: ExperimentConfig, modes: list[str], check: Parity | None, rtol: float,
           atol: float) -> tuple[Any, list[str]]:
    """The parity bisect (trainer/parity_bisect.py) when the verdict is FAIL between graph and
    pynative: it and its lines (one line saying why when it could not run); else nothing."""
    if check is None or check.passed or sorted(modes) != ["graph", "pynative"]:
        return None, []
    from .parity_bisect import bisect_modes

    tqdm.write("compare: parity FAIL - rerunning both modes in lockstep to find the node",
               file=sys.stderr)
    try:
        found = bisect_modes(config, modes, check.first_diff_step, rtol, atol)
    except Exception as error:  # a diagnosis that fails must not lose the report
        first = str(error).splitlines()[0] if str(error) else ""
        return None, [f"parity bisect: could not run ({type(error).__name__}: {first})"]
    return found, found.text()


def where(parent: Any) -> list[str]:
    """The parent run's page and its figure, for the lines after the report."""
    if not parent.online:
        return [f"  MLflow:  logged offline to {parent.offline_path} (import with `train sync-offline`)"]
    artifacts = parent.client.get_run(parent.run_id).info.artifact_uri
    figure_at = f"{artifacts.removeprefix('file://')}/compare.png"
    return [f"  MLflow:  {parent.url}  (start the UI: train ui)", f"  figure:  {figure_at}"]
