"""What a run actually used, as MLflow records it: the resolved config, the data read
(``log_inputs``), ``mlflow.source.*`` tags, and this run's files as artifacts.

Contracts:

- :func:`resolved_config` is the config with every default that depends on the run
  filled in (mode, checkpoint and IR folders, tracking URI, run name, the dataset
  folder that was really read). The checkpoint folder is the config's, alike in every run
  of it; the time-stamped folder each run writes into is the run's ``checkpoint_folder``
  tag. ``train run --print-config`` prints it; runs log it as params and as ``config.yaml``.
- :func:`data_record` and :func:`dataset_inputs` describe the data files read (name,
  path, SHA-256 digest, sample counts); :func:`log_data` sends both.
- :func:`log_run_files` logs exactly this run's checkpoint files (its prefix, the final
  one included; never other runs' files in the same folder) and its IR artifacts made
  readable in the UI (``.ir`` as ``.ir.txt``, LLVM/CUDA sources gzipped, a rendered
  ``graph.svg`` when Graphviz's ``dot`` is installed, else a note saying so).
"""

from __future__ import annotations

import getpass
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import datasets

from .config import ExperimentConfig

COMPRESSED = (".ll", ".cu", ".c", ".s", ".ptx")  # generated sources: large text, gzipped


def data_files(config: ExperimentConfig) -> dict[str, dict[str, str]]:
    """Per split: the files read (``images``, ``labels``, ``sha256``) and ``name``, the
    dataset folder really read (``mnist-10k`` when ``mnist`` fell back to it)."""
    from .data import data_files as custom_files

    custom = custom_files(config)
    if custom is not None:
        return custom
    d = config.dataset
    fallbacks, name = datasets.catalog.fallback_folders(d.name), datasets.catalog.canonical(d.name)
    out = {}
    for split in ("train", "test"):
        files = dict(datasets.files_used(d.name, split, d.root))
        folder = Path(files["images"]).parent.name if files else name
        files["name"] = folder if folder in fallbacks else name
        out[split] = files
    return out


def resolved_config(config: ExperimentConfig, *, mode: str | None = None, tracking_uri: str | None = None,
                    run_name: str | None = None) -> dict[str, Any]:
    """``config.to_dict()`` with the values this run resolves instead of nulls. The
    checkpoint folder is the config's (each run writes into a time-stamped folder of its own
    under it: the run's ``checkpoint_folder`` tag, not a param that differs between every
    two runs)."""
    from .config import task_view
    from .mlflow_logger import tracking_uri as default_uri

    mode = mode or config.mode
    out = task_view(config.to_dict(), config.task)  # the keys of its task: the file loads again
    out["mode"] = mode
    out["checkpoint"]["dir"] = str(Path(config.checkpoint_dir).resolve())
    out["ir"]["dir"] = str(Path(config.ir_dir).resolve())
    out["mlflow"]["tracking_uri"] = tracking_uri or default_uri(config.mlflow.tracking_uri)
    out["mlflow"]["run_name"] = run_name or config.mlflow.run_name or f"{config.name}-{mode}"
    try:
        files = data_files(config)["train"]
    except datasets.DatasetError:
        files = {}
    out["dataset"]["name"] = files.get("name", config.dataset.name)
    if files.get("images"):
        out["dataset"]["root"] = str(Path(files["images"]).parent)
    return out


def data_record(files: dict[str, dict[str, str]], loaders: dict[str, Any]) -> dict[str, Any]:
    """MLflow params saying which data a run read: name, files, checksum, sample counts."""
    record: dict[str, Any] = {"data.name": files["train"]["name"]}
    for split, found in files.items():
        for key in ("images", "labels", "sha256"):
            if key in found:
                record[f"data.{split}.{key}"] = found[key]
        samples = getattr(loaders[split], "num_samples", None)
        if samples is not None:
            record[f"data.{split}.samples"] = samples
    return record


def dataset_inputs(files: dict[str, dict[str, str]], loaders: dict[str, Any]) -> list[Any]:
    """One ``DatasetInput`` per split (context ``training``/``testing``), as ``mlflow.log_input``
    records it: name, digest (of the files), source (their folder), profile (counts, shapes)."""
    from mlflow.entities import Dataset, DatasetInput, InputTag

    out = []
    for split, context in (("train", "training"), ("test", "testing")):
        found, loader = files[split], loaders[split]
        images = getattr(loader, "images", None)
        size = getattr(loader, "get_dataset_size", None)
        profile = {"num_samples": getattr(loader, "num_samples", None),
                   "num_batches": size() if size else len(loader),
                   "image_shape": list(images.shape[1:]) if images is not None else None}
        source = {"uri": str(Path(found["images"]).parent) if found.get("images") else "unknown",
                  "images": found.get("images"), "labels": found.get("labels")}
        dataset = Dataset(name=f"{found['name']}-{split}", digest=found.get("sha256", "unknown")[:16],
                          source_type="local", source=json.dumps(source), profile=json.dumps(profile))
        out.append(DatasetInput(dataset, tags=[InputTag("mlflow.data.context", context)]))
    return out


def log_data(run: Any, config: ExperimentConfig, train: Any, test: Any) -> dict[str, dict[str, str]]:
    files = data_files(config)
    loaders = {"train": train, "test": test}
    run.log_params(data_record(files, loaders))
    if run.online:
        run.log_inputs(dataset_inputs(files, loaders), {s: dict(f) for s, f in files.items()})
    return files


def source_tags(entry_point: str | None, commit: str) -> dict[str, str]:
    """MLflow's ``mlflow.source.*`` and ``mlflow.user`` tags (as its fluent API sets them):
    the source is ``entry_point`` (the experiment file) or the script; ``command`` is the
    command line that ran. A process started as ``python -c ...`` (a sweep's worker) has
    neither script nor a command line worth showing: no source name (unless given) and no
    ``command``."""
    script = sys.argv[0] if sys.argv and sys.argv[0] not in ("-c", "") else None
    tags = {"mlflow.source.type": "LOCAL", "mlflow.source.git.commit": commit}
    if entry_point or script:
        tags["mlflow.source.name"] = entry_point or script
    if script:
        tags["command"] = " ".join([Path(script).name, *sys.argv[1:]])
    try:
        tags["mlflow.user"] = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in some containers
        pass
    return tags


# -- artifacts --------------------------------------------------------------------------------
def log_run_files(run: Any, checkpoints: list[Path], ir_dir: str | None) -> None:
    """This run's checkpoint files under ``checkpoints/`` and its IR under ``ir/``."""
    for path in checkpoints:
        run.log_artifact(path, "checkpoints")
    if ir_dir and Path(ir_dir).is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            run.log_artifact(readable_ir(Path(ir_dir), Path(tmp) / "ir"), "ir")


def readable_ir(source: Path, target: Path) -> Path:
    """A copy of an IR folder that MLflow's artifact view previews: ``.ir`` -> ``.ir.txt``,
    generated sources gzipped, ``graph.svg`` from ``graph.dot`` (or ``graph.svg.README.txt``
    saying why not)."""
    for path in sorted(source.rglob("*")):
        if not path.is_file():
            continue
        out = target / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".ir":
            shutil.copyfile(path, out.with_name(out.name + ".txt"))
        elif path.suffix in COMPRESSED:
            with open(path, "rb") as f, gzip.open(out.with_name(out.name + ".gz"), "wb") as g:
                shutil.copyfileobj(f, g)
        else:
            shutil.copyfile(path, out)
        if path.name == "graph.dot":
            render_svg(path, out.with_name("graph.svg"))
    return target


def render_svg(dot_file: Path, svg: Path) -> bool:
    dot = shutil.which("dot")
    if dot is None:
        svg.with_name("graph.svg.README.txt").write_text(
            "graph.svg was not rendered: Graphviz's `dot` is not installed on the machine that "
            "trained (apt-get install graphviz); graph.dot holds the same graph.\n")
        return False
    try:
        subprocess.run([dot, "-Tsvg", str(dot_file), "-o", str(svg)], check=True, timeout=120,
                       capture_output=True)
        return True
    except (OSError, subprocess.SubprocessError) as error:
        note = f"graph.svg was not rendered: dot failed ({error})\n"
        svg.with_name("graph.svg.README.txt").write_text(note)
        return False
