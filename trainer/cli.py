"""The ``train`` command line: run, compare, sweep, eval, ir, init and ui over YAML experiments.

Exit codes: 0 success, 1 training failure, 2 bad input (config, flags, files), 130 Ctrl-C.
"""

from __future__ import annotations

import shlex
import sys
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import typer
import yaml

from .cli_failures import fail as _fail
from .cli_failures import guarded as _guarded


def _flags_bare(params: list) -> list:
    """A flag (``--quiet``, ``--help``) shows no ``<bool>`` in the help: it takes no value."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class _Command(typer.core.TyperCommand):
    """Usage lines as Unix tools write them: ``train run [OPTIONS] FILE [KEY=VALUE]...``
    (typer writes a required argument as ``{FILE}``); flags without a metavar."""

    def collect_usage_pieces(self, ctx):
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p
                for p in super().collect_usage_pieces(ctx)]

    def get_params(self, ctx):
        return _flags_bare(super().get_params(ctx))


class _Group(typer.core.TyperGroup):
    def get_params(self, ctx):
        return _flags_bare(super().get_params(ctx))


app = typer.Typer(
    cls=_Group, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
    help="Train YAML-described experiments with twinmode (graph or PyNative mode); runs are "
         "logged to MLflow (sqlite:///mlflow.db here unless MLFLOW_TRACKING_URI or the YAML "
         "says otherwise; see `train ui`).",
    epilog="Examples: train run experiments/lenet.yaml --mode pynative train.epochs=1 | "
           "train compare experiments/smoke.yaml | train run experiments/lenet.yaml --resume last. "
           "Exit codes: 0 success, 1 training failure, 2 bad input, 130 interrupted.")


class Mode(StrEnum):
    graph = "graph"
    pynative = "pynative"


class Device(StrEnum):
    cpu = "cpu"
    cuda = "cuda"


class Task(StrEnum):
    classification = "classification"
    language_model = "language_model"


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"warning: {message}\n"


@app.callback()
def _setup() -> None:
    """Warnings as one line each (`warning: ...`), not Python's source-line format; MLflow's
    notes on creating its database (a first run's) left out."""
    import logging
    import warnings

    warnings.formatwarning = _one_line_warning
    logging.getLogger("mlflow.store.db.utils").setLevel(logging.WARNING)


FileArg = Annotated[Path, typer.Argument(
    metavar="FILE", help="Experiment YAML file, e.g. experiments/lenet.yaml.")]
Overrides = Annotated[list[str] | None, typer.Argument(
    metavar="KEY=VALUE", show_default=False,
    help="Dotted KEY=VALUE overrides, validated like the file: train.epochs=1 dataset.limit=2000.")]


def _load(file: Path, overrides: list[str] | None, import_code: bool = True, **forced: str | None):
    from .config import ConfigError, load_config

    extra = [f"{k}={v}" for k, v in forced.items() if v is not None]
    try:
        return load_config(file, list(overrides or []) + extra, import_code=import_code)
    except ConfigError as error:
        _fail(str(error), 2)


@app.command(cls=_Command)
def run(
    file: FileArg,
    overrides: Overrides = None,
    mode: Annotated[Mode | None, typer.Option(help="Execution mode (default: the file's `mode`).")] = None,
    device: Annotated[Device | None, typer.Option(help="cpu or cuda (default: the file's).")] = None,
    resume: Annotated[str | None, typer.Option(
        help="Checkpoint to continue from: a .ckpt path, or `last` for this experiment's newest.")] = None,
    print_config: Annotated[bool, typer.Option(
        "--print-config", help="Show the resolved config and exit.")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress bar or loss lines.")] = False,
    profile: Annotated[bool, typer.Option(
        "--profile", help="Time graph mode's compiled kernels by source line: a hot-lines table at "
                          "the end, profile.json and a flame graph SVG in MLflow.")] = False,
    nproc: Annotated[int | None, typer.Option(
        min=1, help="Data-parallel ranks started with mpiexec (needs the dist extra; default: "
                    "the file's dist.nproc). Or launch yourself: mpirun -n N train run FILE.")] = None,
    hosts: Annotated[str | None, typer.Option(
        help="Comma-separated hosts for mpiexec -hosts (host or host:slots; default: dist.hosts).")]
    = None,
) -> None:
    """Train and evaluate one experiment; logs the run to MLflow."""
    forced = {"dist.nproc": nproc, "dist.hosts": f"[{hosts}]" if hosts else None}
    config = _load(file, overrides, not print_config, mode=mode.value if mode else None,
                   device=device.value if device else None, **forced)
    from framework.communication import launched_by_mpi

    if config.dist.nproc > 1 and not launched_by_mpi() and not print_config:
        from .dist_launch import LaunchError, launch

        try:
            raise typer.Exit(launch(config.dist.nproc, config.dist.hosts, sys.argv[1:]))
        except LaunchError as error:
            _fail(str(error), 2)
    if profile and config.mode != "graph":
        _fail(f"--profile times graph mode's compiled kernels; this run's mode is {config.mode} "
              "(PyNative is not profiled): add --mode graph", 2)
    if print_config:
        from .mlflow_record import resolved_config

        typer.echo(yaml.safe_dump(resolved_config(config), sort_keys=False).rstrip())
        return
    from .experiment import run_experiment

    source = str(file.resolve())  # mlflow.source.name; the command line is the `command` tag
    # after a Ctrl-C: the same command, resumed (what the interruption line tells the user)
    again = shlex.join(["train", "run", str(file), *(overrides or []),
                        *(["--mode", mode.value] if mode else []),
                        *(["--device", device.value] if device else []), "--resume", "last"])
    result = _guarded(lambda: run_experiment(config, resume=resume, quiet=quiet, source=source,
                                             profile=profile, resume_command=again))
    from framework.communication import get_rank, is_initialized

    if is_initialized() and get_rank() != 0:
        return  # rank 0 reports for the job
    if result.nothing_to_train:
        from .run_summary import run_label

        typer.echo(f"{run_label(config, result.mode)}: {result.nothing_to_train}")
        return
    from .run_summary import summary

    typer.echo(summary(config, result))
    if is_initialized():
        from framework.communication import get_group_size

        typer.echo(f"  ranks:      {get_group_size()} (data parallel, {config.dataset.batch_size} samples "
                   "per rank and step; the speed above is rank 0's, the sum is MLflow's "
                   "dist/samples_per_second)")


@app.command(cls=_Command)
def compare(
    file: FileArg,
    overrides: Overrides = None,
    modes: Annotated[str, typer.Option(help="Comma-separated modes to run from the same seed.")] =
    "graph,pynative",
    rounds: Annotated[int, typer.Option(min=1, help="Timing rounds (modes interleaved).")] = 5,
    steps: Annotated[int, typer.Option(min=1, help="Timed steps per mode and round.")] = 20,
    parity_steps: Annotated[int, typer.Option(min=1, help="N: the verdict covers the first N steps.")]
    = 50,
    rtol: Annotated[float, typer.Option(min=0, help="Parity tolerance: |diff| <= atol + rtol*|loss|.")]
    = 1e-3,
    atol: Annotated[float, typer.Option(min=0, help="Parity tolerance, absolute part.")] = 1e-5,
) -> None:
    """Run each mode from one seed (nested MLflow runs); print speeds and a parity verdict."""
    config = _load(file, overrides)
    names = [m.strip() for m in modes.split(",") if m.strip()]
    bad = [m for m in names if m not in ("graph", "pynative")]
    if bad or not names:
        _fail(f"--modes: unknown mode(s) {', '.join(bad) or '(none)'}; use graph,pynative", 2)
    from .compare import compare_modes

    report = _guarded(lambda: compare_modes(config, names, rounds=rounds, steps=steps, rtol=rtol,
                                            atol=atol, parity_steps=parity_steps,
                                            source=str(file.resolve())))
    typer.echo(report)


class Sampler(StrEnum):
    tpe = "tpe"
    random = "random"
    grid = "grid"


@app.command(cls=_Command)
def sweep(
    file: FileArg,
    overrides: Annotated[list[str] | None, typer.Argument(
        help="KEY=VALUE fixes a key; KEY=V1,V2,... is a grid; KEY=loguniform(1e-4,1e-1), uniform(a,b), "
             "int(a,b), choice(a,b,...) are search spaces.")] = None,
    trials: Annotated[int | None, typer.Option(
        help="Trials the study should have in all (default: the whole grid, else 20).")] = None,
    sampler: Annotated[Sampler | None, typer.Option(
        help="grid (default when every key is a list), tpe (default otherwise) or random.")] = None,
    metric: Annotated[str | None, typer.Option(
        help="Metric to optimize: eval/accuracy (default), eval/loss, train/accuracy, train/loss; a "
             "language model: val/loss (its default), val/perplexity; older names (test_accuracy, "
             "...) work too.")] = None,
    direction: Annotated[str | None, typer.Option(
        help="maximize or minimize (default: from the metric).")] = None,
    pruner: Annotated[str | None, typer.Option(
        help="none (default), median or hyperband, with Optuna's options: median(n_startup_trials=2).")]
    = None,
    workers: Annotated[int, typer.Option(help="Trials run at once, as processes sharing the cores.")] = 1,
    storage: Annotated[str | None, typer.Option(
        help="Study database URL (default sqlite:///sweeps.db; postgresql://... for several machines).")]
    = None,
    study: Annotated[str | None, typer.Option(
        help="Study name (default: from the experiment and the search, so the same command continues).")]
    = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the sampler (worker i uses seed+i).")] = None,
    best_out: Annotated[Path | None, typer.Option(
        help="Write the best trial's config here as YAML (train run accepts it).")] = None,
) -> None:
    """Search hyper-parameters with Optuna: trials as nested MLflow runs under one parent run."""
    _require_sweep_extra()
    from .sweep import SweepOptions

    options = SweepOptions(trials, sampler.value if sampler else None, metric, direction, pruner, workers,
                           storage, study, seed, best_out)
    _report_sweep(_run_sweep(file, list(overrides or []), options))


def _require_sweep_extra() -> None:
    """Exit 2 with the install line when Optuna or matplotlib (the ``sweep`` extra) is missing."""
    try:
        import matplotlib  # noqa: F401
        import optuna  # noqa: F401
    except ImportError as error:
        _fail(f"train sweep needs {error.name}: pip install -e '.[sweep]' (Optuna + matplotlib)", 2)


def _run_sweep(file: Path, overrides: list[str], options):
    """Run the sweep to its outcome: bad input exits 2, a Ctrl-C outside the workers 130."""
    from .config import ConfigError
    from .sweep import run_sweep
    from .sweep.study import StudyError

    try:
        return run_sweep(file, overrides, options, echo=typer.echo)
    except (ConfigError, StudyError) as error:
        _fail(str(error), 2)
    except KeyboardInterrupt:
        _fail("interrupted; run the same command again to continue the sweep", 130)


def _report_sweep(outcome) -> None:
    """The sweep's one-line summary (its best trial); exit 130 when interrupted, 1 (2 for bad
    input) when no trial completed, 2 when a trial had bad input."""
    if outcome.exit_code == 130:
        _fail(f"interrupted after {outcome.counted} of {outcome.target} trials; run the same command "
              "again to continue the sweep", 130)
    best = outcome.best
    if best is None:
        _fail(f"sweep '{outcome.study}': no trial completed ({outcome.counted} of {outcome.target} "
              "ended); see the errors above", 2 if outcome.exit_code == 2 else 1)
    from .sweep.worker import describe

    params = describe(best.params)
    typer.echo(f"sweep '{outcome.study}': {outcome.counted}/{outcome.target} trials in "
               f"{outcome.seconds:.1f} s; best trial {best.number}: {outcome.metric} {best.value:.4f} "
               f"[{params}]"
               + (f"; best config in {outcome.best_out}" if outcome.best_out else ""))
    if outcome.exit_code == 2:
        raise typer.Exit(2)


@app.command("eval", cls=_Command)
def eval_(
    file: FileArg,
    checkpoint: Annotated[str, typer.Option(help="Checkpoint file, or 'last' / 'best' (the newest / "
                                            "the keep-best checkpoint of this config's runs).")] = "last",
    overrides: Overrides = None,
    mode: Annotated[Mode | None, typer.Option(help="Execution mode for evaluation.")] = None,
) -> None:
    """Evaluate a checkpoint on the experiment's test set (a language model: validation text)."""
    config = _load(file, overrides, mode=mode.value if mode else None)
    from .checkpoint_info import resolve, used_line
    from .experiment import evaluate
    from .tasks import task_of

    path, read = _guarded(lambda: resolve(config, checkpoint))
    metrics = _guarded(lambda: evaluate(config, read or path))
    task = task_of(config)
    typer.echo(task.result_line(config, SimpleNamespace(metrics=metrics)))
    typer.echo("  " + used_line(path, read, task.metric_prefix))


@app.command(cls=_Command)
def sample(
    file: FileArg,
    checkpoint: Annotated[str, typer.Option(help="Checkpoint file, or 'last' / 'best' (the newest / "
                                            "the keep-best checkpoint of this model's runs).")] = "last",
    prompt: Annotated[str, typer.Option(help="Text to continue (default: a newline).")] = "",
    tokens: Annotated[int, typer.Option(min=1, max=100_000, help="Tokens to generate.")] = 500,
    temperature: Annotated[float, typer.Option(min=1e-6, help="Softmax temperature.")] = 0.8,
    top_k: Annotated[int, typer.Option(min=0, help="Sample among the k likeliest tokens (0: all).")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the sampling generator.")] = 0,
    overrides: Overrides = None,
    mode: Annotated[Mode | None, typer.Option(help="Execution mode (graph compiles one function).")] = None,
) -> None:
    """Generate text from a language model's checkpoint, printed as it is generated."""
    import sys

    config = _load(file, overrides)
    from .checkpoint_info import resolve, used_line
    from .sample import sample as generate
    from .tasks import task_of

    path, read = _guarded(lambda: resolve(config, checkpoint))
    said = []

    def write(text: str) -> None:
        if not said:  # the checkpoint, once it gives text; on stderr: the text alone is piped
            said.append(typer.echo(used_line(path, read, task_of(config).metric_prefix), err=True))
        sys.stdout.write(text)
        sys.stdout.flush()

    _guarded(lambda: generate(config, read or path, prompt, tokens, temperature, top_k or None, seed,
                              mode.value if mode else None, write))
    sys.stdout.write("\n")


@app.command(cls=_Command)
def export(
    file: FileArg,
    checkpoint: Annotated[str, typer.Option(help="Checkpoint file, or 'last' / 'best' (this config's "
                                            "newest / keep-best checkpoint).")] = "last",
    out: Annotated[Path | None, typer.Option(help="The .onnx file (default: <checkpoint>.onnx).")] = None,
    format: Annotated[str, typer.Option("--format", help=(
        "onnx (MindSpore's MINDIR is not written); the file is also logged to the "
        "checkpoint's MLflow run as model 'onnx'."))]
    = "onnx",
    overrides: Overrides = None,
) -> None:
    """Export a checkpoint's network for inference runtimes (ONNX, opset 18, batch symbolic)."""
    config = _load(file, overrides)
    from .checkpoint_info import resolve, used_line
    from .export import export_checkpoint
    from .tasks import task_of

    path, read = _guarded(lambda: resolve(config, checkpoint))
    target = out or path.with_suffix(".onnx")
    written = _guarded(lambda: export_checkpoint(config, path, target, format.lower()))
    typer.echo(f"wrote {written}\n  " + used_line(path, read, task_of(config).metric_prefix))


@app.command(cls=_Command)
def ir(
    file: FileArg,
    overrides: Overrides = None,
    out: Annotated[Path | None, typer.Option(
        help="Folder for the IR artifacts (default: ir/<name>).")] = None,
    device: Annotated[Device | None, typer.Option(
        help="cpu or cuda (CUDA code is generated without a GPU).")] = None,
) -> None:
    """Trace and compile the graph-mode train step and write its IR artifacts; no training."""
    config = _load(file, overrides, device=device.value if device else None)
    from .experiment import dump_ir

    target = str(out or config.ir_dir)
    report = _guarded(lambda: dump_ir(config, target))
    typer.echo(f"IR artifacts in {target}/{report.function}: {report.nodes_optimized} nodes, "
               f"compiled in {report.compile_seconds:.1f} s")


@app.command(cls=_Command)
def init(
    folder: Annotated[Path, typer.Argument(help="Folder for the starter files (created).")] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing starter files.")] = False,
    task: Annotated[Task, typer.Option(metavar="TASK", help="classification (images) or "
                                       "language_model (text).")]
    = Task.classification,
) -> None:
    """Write a commented starter experiment.yaml and a model.py to edit (your own network)."""
    from .starter import StarterExists, write_starter

    try:
        written = write_starter(folder, force, task.value)
    except StarterExists as error:
        _fail(str(error), 2)
    except OSError as error:
        _fail(f"{folder}: cannot write the starter files ({error.strerror or error})", 2)
    typer.echo("wrote " + ", ".join(str(p) for p in written) + f"\nnext: train run {written[0]}"
               "  (edit model.py for your network; experiment.yaml for data and training)")


@app.command("sync-offline", cls=_Command)
def sync_offline(
    folder: Annotated[Path, typer.Argument(help="Folder of offline runs.")] = Path("mlruns-offline"),
    tracking_uri: Annotated[str | None, typer.Option(help="Store to import into (default: as `run` uses).")]
    = None,
) -> None:
    """Import runs logged offline (store unreachable) into the MLflow store."""
    from .mlflow_logger import StoreUnreachable
    from .mlflow_logger import tracking_uri as default_uri
    from .offline_sync import OfflineRecordError
    from .offline_sync import sync_offline as sync

    uri = tracking_uri or default_uri()
    try:
        report = sync(folder, uri)
    except (FileNotFoundError, OfflineRecordError) as error:
        _fail(str(error), 2)
    except StoreUnreachable as error:
        _fail(f"{error}; nothing more was imported, the offline files stay", 1)
    typer.echo(f"imported {report.runs} run(s) with {report.metrics} metric values from {report.files} "
               f"file(s) in {folder} into {uri}")


@app.command(cls=_Command)
def ui(
    port: Annotated[int, typer.Option(help="Port for the MLflow UI.")] = 5000,
    host: Annotated[str, typer.Option(help="Address to listen on: 127.0.0.1 is this machine only, "
                                      "0.0.0.0 every network interface.")] = "127.0.0.1",
    tracking_uri: Annotated[str | None, typer.Option(help="Tracking store (default: as `run` uses).")] = None,
) -> None:
    """Start the MLflow UI on the configured tracking store (Ctrl-C stops it)."""
    from .mlflow_logger import tracking_uri as default_uri
    from .ui import PortError, check_port, serve

    uri = tracking_uri or default_uri()
    try:
        check_port(port, host)
    except PortError as error:
        _fail(str(error), 2)
    raise typer.Exit(serve(uri, port, echo=lambda text: typer.echo(text, err=True), host=host))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
