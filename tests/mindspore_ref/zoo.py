"""Networks of MindSpore's model zoo (mindspore-ai/models), loaded where a copy is present,
with their imports rewritten from ``mindspore`` to ``framework``, and trained one step.

The zoo is never part of this project: ``MINDSPORE_MODELS_DIR`` names a checkout (or an
extract) of it, and :func:`load` reads one network definition file from there. The file's
project folder (e.g. ``official/cv/ResNet``) is mirrored into a temporary folder: each
``.py`` file with its import lines rewritten (:func:`rewrite`: ``from mindspore.ops import
operations as P`` -> ``from framework.ops import operations as P``, ``import mindspore`` ->
``import framework as mindspore``; nothing else changes), package ``__init__.py`` files
emptied (loading one definition file should not run the project's package imports), and
the network's ``stubs`` (its config modules, which parse ``sys.argv`` and YAML files)
written over them. The module is imported from the mirror under its dotted name
(``src.resnet``), so graph mode reads the rewritten source. With ``engine="mindspore"`` the
same is done without the rewrite, for MindSpore's own run.

One step (:func:`train_step`): the network's loss cell (``spec.loss_cell``, by default
``nn.WithLossCell`` with ``nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")``),
``nn.Momentum(lr=0.01, momentum=0.9)`` and ``nn.TrainOneStepCell``, in training mode with
every ``nn.Dropout`` cell set to inference (dropout's random masks differ between modes and
engines). It returns the loss and the trainable parameters before and after the step, in
order. :func:`run` may perturb the batch and every floating-point weight (``x * (1 + 1e-6 *
noise)``: a few ulps of float32 at every layer, as rounding differences between two
implementations are) to measure how far float32 rounding can move a network's one-step update.

Run as a script by MindSpore's Python (``python zoo.py OUT_FOLDER MODELS_DIR [MODE]
NAME:CKPT ...``, MODE ``pynative`` by default)
it builds each network there, loads the checkpoint written here (by name, or by position
where MindSpore names a parameter otherwise) and writes ``NAME.npz`` (``loss``, the weights
after the step as ``w0, w1, ...``, and ``error`` when it failed). It imports nothing from
``framework`` at module level, so it runs in MindSpore's venv.
"""

from __future__ import annotations

import importlib
import re
import shutil
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script in MindSpore's venv
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.mindspore_ref.zoo_networks import NETWORKS, Spec  # noqa: E402

_IMPORT = re.compile(r"^(?P<indent>[ \t]*)import[ \t]+mindspore(?P<rest>(?:\.[\w.]+)?)(?![\w.])"
                     r"(?P<tail>.*)$", re.M)
_FROM = re.compile(r"^(?P<indent>[ \t]*)from[ \t]+mindspore(?=[\s.])", re.M)


def rewrite(source: str, engine: str = "framework") -> str:
    """``source`` with its ``mindspore`` imports naming ``engine`` instead."""
    if engine == "mindspore":
        return source

    def one_import(match: re.Match) -> str:
        rest, tail, indent = match["rest"], match["tail"], match["indent"]
        if re.match(r"\s+as\s", tail):  # `import mindspore[.x] as y`
            return f"{indent}import {engine}{rest}{tail}"
        if not rest:  # `import mindspore`
            return f"{indent}import {engine} as mindspore{tail}"
        # `import mindspore.x.y`: binds `mindspore` (the package) and loads the submodule
        return f"{indent}import {engine}{rest}; import {engine} as mindspore{tail}"

    source = _IMPORT.sub(one_import, source)
    return _FROM.sub(lambda m: f"{m['indent']}from {engine}", source)


def mirror(models_dir: Path, spec: Spec, engine: str, folder: Path) -> Path:
    """The network's project folder copied (``.py`` files only) into ``folder``,
    rewritten for ``engine``, package inits emptied, the stubs written; its root."""
    project = models_dir / spec.project
    if not (project / spec.file).is_file():
        raise FileNotFoundError(f"{spec.name}: {project / spec.file} is not in the zoo copy")
    root = folder / f"{spec.name}_{engine}"
    if root.exists():
        shutil.rmtree(root)
    for path in project.rglob("*.py"):
        target = root / path.relative_to(project)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = "" if path.name == "__init__.py" else path.read_text(encoding="utf-8", errors="replace")
        target.write_text(rewrite(text, engine))
    for rel, text in spec.stubs.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rewrite(text, engine))
    for package in {p.parent for p in root.rglob("*.py")} - {root}:
        (package / "__init__.py").touch()
    return root


def _forget(root: Path) -> None:
    """Unload the modules imported from an earlier mirror (projects share ``src``)."""
    mirrors = str(root.parent)
    for name, module in list(sys.modules.items()):
        path = str(getattr(module, "__file__", "") or "")
        if name.split(".")[0] in ("src", "model_utils") or path.startswith(mirrors):
            del sys.modules[name]


def load(models_dir: str | Path, spec: Spec, engine: str, folder: Path) -> Any:
    """The network definition module of ``spec``, imported from a rewritten mirror."""
    root = mirror(Path(models_dir), spec, engine, folder)
    _forget(root)
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(spec.module)
    finally:
        sys.path.remove(str(root))


def build(ms: Any, spec: Spec, module: Any) -> tuple[Any, Any, list[np.ndarray]]:
    """``(network, loss cell, batch)`` from the spec's builder, seeded."""
    ms.set_seed(0)
    network, batch = spec.build(module, ms)
    loss_cell = spec.loss_cell(ms, network) if spec.loss_cell else ms.nn.WithLossCell(
        network, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    return network, loss_cell, batch


def train_step(ms: Any, network: Any, loss_cell: Any, batch: list[np.ndarray]):
    """One Momentum step; ``(loss as float64 array, [weights before], [weights after])``,
    the trainable parameters in order."""
    params = network.trainable_params()
    before = [p.asnumpy().copy() for p in params]
    optimizer = ms.nn.Momentum(params, learning_rate=0.01, momentum=0.9)
    step = ms.nn.TrainOneStepCell(loss_cell, optimizer)
    step.set_train()
    for _, cell in step.cells_and_names():
        if isinstance(cell, ms.nn.Dropout):
            cell.set_train(False)
    loss = step(*[ms.Tensor(b) for b in batch])
    loss = loss[0] if isinstance(loss, tuple | list) else loss
    return np.asarray(loss.asnumpy(), np.float64), before, [p.asnumpy() for p in params]


def load_weights(ms: Any, network: Any, ckpt: Path) -> str:
    """The checkpoint's values into ``network``: by name (strictly), else by position with
    the shapes checked; says which."""
    values = ms.load_checkpoint(str(ckpt))
    not_loaded, _ = ms.load_param_into_net(network, values, strict_load=True)
    if not not_loaded:
        return "by name"
    params = network.get_parameters() if hasattr(network, "get_parameters") else network.parameters()
    params, arrays = list(params), [v for v in values.values() if hasattr(v, "asnumpy")]
    if [tuple(p.shape) for p in params] != [tuple(a.shape) for a in arrays]:
        raise ValueError(f"checkpoint {ckpt}: {len(not_loaded)} parameters not found by name "
                         f"(e.g. {not_loaded[:3]}) and the shapes differ in order")
    for p, a in zip(params, arrays):
        p.set_data(ms.Tensor(a.asnumpy()))
    return f"by position ({len(not_loaded)} names differ, e.g. {not_loaded[0]})"


def perturbed(batch: list[np.ndarray], scale: float, seed: int = 7) -> list[np.ndarray]:
    """The batch with its float arrays times ``1 + scale * noise`` (the noise fixed by ``seed``)."""
    rng = np.random.default_rng(seed)
    return [(b * (1 + scale * rng.standard_normal(b.shape))).astype(b.dtype) if b.dtype.kind == "f"
            else b for b in batch]


def run(ms: Any, models_dir: str | Path, name: str, mode: str, folder: Path,
        ckpt: Path | None = None, engine: str = "framework", perturb: float = 0.0,
        seed: int = 7) -> dict[str, Any]:
    """Network ``name`` built, given the checkpoint's weights (or its own, then saved to
    ``ckpt`` in MindSpore's format when ``ckpt`` does not exist yet), trained one step in
    ``mode`` (on the batch perturbed by ``perturb``, see :func:`perturbed`):
    ``{"loss", "before", "weights", "names", "loaded"}``."""
    spec = NETWORKS[name]
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    module = load(models_dir, spec, engine, folder)
    network, loss_cell, batch = build(ms, spec, module)
    loaded = "own init"
    if ckpt is not None and ckpt.exists():
        loaded = load_weights(ms, network, ckpt)
    elif ckpt is not None:
        fmt = {"format": "mindspore"} if engine == "framework" else {}
        ms.save_checkpoint(network, str(ckpt), **fmt)
    if perturb:
        batch = perturbed(batch, perturb, seed)
        params = list(network.get_parameters())
        values = perturbed([p.asnumpy() for p in params], perturb, seed + 1000)
        for p, value in zip(params, values):
            p.set_data(ms.Tensor(value))
    loss, before, weights = train_step(ms, network, loss_cell, batch)
    names = [p.name for p in network.trainable_params()]
    return {"loss": loss, "before": before, "weights": weights, "names": names, "loaded": loaded}


def main(argv: list[str]) -> None:
    """MindSpore's side: ``OUT_FOLDER MODELS_DIR [MODE] NAME:CKPT ...`` -> ``NAME.npz``."""
    import mindspore as ms

    out, models_dir, jobs = Path(argv[0]), argv[1], argv[2:]
    mode = "pynative"
    if jobs and jobs[0] in ("graph", "pynative"):
        mode, jobs = jobs[0], jobs[1:]
    folder = Path(tempfile.mkdtemp(prefix="zoo-ms-"))
    for job in jobs:
        name, ckpt = job.split(":", 1)
        try:
            result = run(ms, models_dir, name, mode, folder, Path(ckpt), engine="mindspore")
            np.savez(out / f"{name}.npz", loss=result["loss"], loaded=result["loaded"],
                     **{f"w{i}": w for i, w in enumerate(result["weights"])})
        except Exception as error:  # noqa: BLE001  (reported to the test)
            lines = traceback.format_exc().strip().splitlines()
            message = f"{type(error).__name__}: {str(error).strip()[:800]} | " + " / ".join(lines[-6:])
            np.savez(out / f"{name}.npz", error=message)


if __name__ == "__main__":
    main(sys.argv[1:])
