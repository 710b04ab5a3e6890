"""MindSpore's public API against ``framework``'s: ``docs/api_coverage.md``.

Two steps (``make api-coverage`` runs both, the first only where ``MINDSPORE_PYTHON`` is set):

- ``names``: MindSpore's public names, read by ``tests/mindspore_ref/mindspore_names.py`` in MindSpore's
  own venv (a subprocess of ``MINDSPORE_PYTHON``), stored in ``docs/mindspore_names.json``.
  Names only: nothing of MindSpore's code or documentation is kept.
- ``table`` (the default): each stored name looked up in ``framework`` (``framework.ops``,
  ``framework.ops.operations``, ``framework.nn``, ``framework.Tensor``, and for every other
  namespace the module of the same path: ``framework.mint.nn``, ``framework.nn.optim``,
  ``framework.common.dtype``, ``framework.ops.operations._grad_ops`` ...) and classified, then
  written to ``docs/api_coverage.md``. This needs no MindSpore; the test
  ``tests/mindspore_ref/test_api_coverage.py`` renders the table in memory and fails when
  the file differs.

A name is *present* when the namespace has it (for every namespace but ``Tensor``
a callable, not one of our submodules or values that happens to share the name; in the
``common.*`` and ``device_context.cpu*`` modules, whose names include values such as dtypes,
any attribute but a submodule; in ``device_context``, a submodule); *refused* when
looking it up raises an error other than ``AttributeError`` (a module ``__getattr__``
refusing it with a message), or when what it names carries a ``__refused__`` string (a
stub that refuses every call with that message); *missing* otherwise.

Each name also carries MindSpore's CPU flag (stored with the names, read from the
"Supported Platforms:" section of its docstring): ``yes`` where that section lists CPU,
``no`` where it lists other platforms only, ``-`` where the docstring has no such section.
The summary counts the CPU-supported names (flag ``yes``) and how many of them are present.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NAMES = ROOT / "docs" / "mindspore_names.json"
TABLE = ROOT / "docs" / "api_coverage.md"
COMMAND = "make api-coverage"

# namespace -> (its title, how MindSpore code spells it)
NAMESPACES = {
    "ops": ("Functional operators", "mindspore.ops.<name>"),
    "ops.operations": ("Primitive classes", "mindspore.ops.operations.<Name> (P.<Name>)"),
    "nn": ("Cells and nn functions", "mindspore.nn.<name>"),
    "Tensor": ("Tensor methods and properties", "mindspore.Tensor.<name>"),
    "mint": ("PyTorch-style functions", "mindspore.mint.<name>"),
    "mint.nn": ("PyTorch-style Cells", "mindspore.mint.nn.<Name>"),
    "mint.nn.functional": ("PyTorch-style functional layers", "mindspore.mint.nn.functional.<name>"),
    "mint.optim": ("PyTorch-style optimizers", "mindspore.mint.optim.<Name>"),
    "mint.special": ("Special functions", "mindspore.mint.special.<name>"),
    "mint.linalg": ("Linear algebra", "mindspore.mint.linalg.<name>"),
    "nn.optim": ("Optimizers", "mindspore.nn.optim.<Name>"),
    "experimental.optim": ("PyTorch-style optimizers", "mindspore.experimental.optim.<Name>"),
    "experimental.optim.lr_scheduler": ("Learning-rate schedulers",
                                        "mindspore.experimental.optim.lr_scheduler.<Name>"),
    "dataset.text": ("Text transforms", "mindspore.dataset.text.<Name>"),
    "dataset.vision": ("Vision transforms", "mindspore.dataset.vision.<Name>"),
    "dataset.transforms": ("General transforms", "mindspore.dataset.transforms.<Name>"),
    "common": ("Common classes and functions", "mindspore.common.<name>"),
    "common.tensor": ("Tensor's module", "mindspore.common.tensor.<name>"),
    "common.parameter": ("Parameter's module", "mindspore.common.parameter.<Name>"),
    "common.dtype": ("Data types", "mindspore.common.dtype.<name>"),
    "common.initializer": ("Initializers", "mindspore.common.initializer.<Name>"),
    "common.api": ("jit and its kin", "mindspore.common.api.<name>"),
    "device_context": ("Device backends (submodules)", "mindspore.device_context.<backend>"),
    "device_context.cpu": ("The CPU backend", "mindspore.device_context.cpu.<name>"),
    "device_context.cpu.op_tuning": ("CPU operator tuning",
                                     "mindspore.device_context.cpu.op_tuning.<name>"),
    "ops.operations.nn_ops": ("Neural-network primitives' module",
                              "mindspore.ops.operations.nn_ops.<Name>"),
    "ops.operations.array_ops": ("Array primitives' module", "mindspore.ops.operations.array_ops.<Name>"),
    "ops.operations.math_ops": ("Math primitives' module", "mindspore.ops.operations.math_ops.<Name>"),
    "ops.operations._grad_ops": ("Backward primitives' module",
                                 "mindspore.ops.operations._grad_ops.<Name> (G.<Name>)"),
}
# namespaces whose names may be values (dtypes, submodules ...): any attribute but one of our
# submodules is present there; device_context's names are its submodules
VALUE_NAMESPACES = {"common", "common.tensor", "common.parameter", "common.dtype",
                    "common.initializer", "common.api", "device_context.cpu",
                    "device_context.cpu.op_tuning"}
MODULE_NAMESPACES = {"device_context"}
STATUSES = ("present", "refused", "missing")
CPU_MARKS = {True: "yes", False: "no", None: "-"}


def read_mindspore_names(python: str) -> dict[str, Any]:
    """MindSpore's public names, read by its own Python (see tests/mindspore_ref/mindspore_names.py)."""
    script = Path(__file__).with_name("mindspore_names.py")
    env = {**os.environ, "GLOG_v": "3", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([python, str(script)], capture_output=True, text=True, env=env,
                          timeout=600, cwd=script.parent)
    if done.returncode != 0:
        raise SystemExit(f"{python} {script.name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _owners() -> dict[str, Any]:
    import numpy as np

    import framework
    from framework import nn, ops
    from framework.ops import operations

    sample = framework.Tensor(np.zeros((2, 3), np.float32))
    owners: dict[str, Any] = {"ops": ops, "ops.operations": operations, "nn": nn, "Tensor": sample}
    for ns in NAMESPACES:
        if ns not in owners:  # the module of the same path, None where there is none
            try:
                owners[ns] = importlib.import_module(f"framework.{ns}")
            except ImportError:
                owners[ns] = None
    return owners


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"[:160]


# names whose MindSpore 2.10 value is itself a module (``mindspore.common.dtype``)
MODULE_VALUED = {("common", "dtype")}


def classify(owner: Any, name: str, namespace: str) -> tuple[str, str]:
    """``(status, note)`` of ``name`` in ``owner`` (a module, or a Tensor for methods)."""
    if owner is None:
        return "missing", f"no module `{namespace}` here"
    try:
        if namespace == "Tensor":
            found = inspect.getattr_static(owner, name)  # no property is evaluated
        else:
            found = getattr(owner, name)
    except AttributeError:
        return "missing", ""
    except Exception as error:  # noqa: BLE001  (a deliberate refusal)
        return "refused", _first_line(error)
    refused = getattr(found, "__refused__", None)
    if isinstance(refused, str):
        return "refused", refused
    if namespace in MODULE_NAMESPACES:
        return ("present", "") if inspect.ismodule(found) else ("missing", f"`{name}` is not a module here")
    if namespace in VALUE_NAMESPACES and not inspect.ismodule(found):
        return "present", ""
    if (namespace, name) in MODULE_VALUED and inspect.ismodule(found):
        return "present", ""
    if namespace != "Tensor" and not callable(found):
        return "missing", f"`{name}` is a {'module' if inspect.ismodule(found) else 'value'} here"
    return "present", ""


def coverage(names: dict[str, Any]) -> dict[str, list[tuple[str, str, str, bool | None]]]:
    """``{namespace: [(name, status, note, cpu), ...]}`` for every stored name (``cpu``:
    MindSpore's flag, see the module docstring)."""
    owners = _owners()
    flags = names.get("cpu", {})
    return {ns: [(n, *classify(owners[ns], n, ns), flags.get(ns, {}).get(n))
                 for n in names["namespaces"][ns]]
            for ns in NAMESPACES}


def _counts(rows: list[tuple[str, str, str, bool | None]]) -> dict[str, int]:
    """The summary's numbers for one namespace's rows."""
    counts = {s: sum(1 for row in rows if row[1] == s) for s in STATUSES}
    counts["all"] = len(rows)
    counts["cpu"] = sum(1 for row in rows if row[3] is True)
    counts["cpu present"] = sum(1 for row in rows if row[3] is True and row[1] == "present")
    return counts


def _summary_row(label: str, c: dict[str, int]) -> str:
    return (f"| {label} | {c['all']} | {c['present']} | {c['refused']} | {c['missing']} | "
            f"{_percent(c['present'], c['all'])} | {c['cpu']} | {c['cpu present']} | "
            f"{_percent(c['cpu present'], c['cpu'])} |")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(names: dict[str, Any]) -> str:
    """The Markdown of docs/api_coverage.md (deterministic: no dates, names sorted)."""
    table = coverage(names)
    version = names["mindspore_version"]
    out = [
        f"# API coverage against MindSpore {version}",
        "",
        f"Generated by `{COMMAND}` (`tests/mindspore_ref/api_coverage.py`) from MindSpore's public",
        "names, stored in `docs/mindspore_names.json` (names only, read from an installed MindSpore); do not",
        "edit by hand. A name is *present* when `framework` has it under the same path,",
        "*refused* when it is there only to refuse use with a message (the message is shown),",
        "*missing* otherwise. Present means the name exists, not that every argument MindSpore",
        "accepts is; the differential tests in `tests/mindspore_ref/` check behaviour.",
        "",
        "*CPU* is MindSpore's own word on the name: `yes` where the \"Supported Platforms\" of its",
        "docstring list CPU, `no` where they list other platforms only, `-` where the docstring",
        "lists none. The last three columns count the CPU-supported names (`yes`) and how many",
        "of them are present.",
        "",
        "| namespace | MindSpore names | present | refused | missing | present % "
        "| CPU-supported | CPU present | CPU present % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals = dict.fromkeys(("all", "cpu", "cpu present", *STATUSES), 0)
    for ns, rows in table.items():
        counts = _counts(rows)
        for key, value in counts.items():
            totals[key] += value
        out.append(_summary_row(f"[`{ns}`](#{_anchor(ns)})", counts))
    out.append(_summary_row("**total**", totals))
    for ns, rows in table.items():
        title, spelling = NAMESPACES[ns]
        out += ["", f"## {ns}", "", f"{title}: `{spelling}`.", "", "| name | status | CPU | note |",
                "|---|---|---|---|"]
        out += [f"| `{name}` | {status} | {CPU_MARKS[cpu]} | {_cell(note)} |"
                for name, status, note, cpu in rows]
    return "\n".join(out) + "\n"


def _anchor(namespace: str) -> str:
    return namespace.lower().replace(".", "")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", nargs="?", choices=("table", "names"), default="table")
    parser.add_argument("--mindspore-python", default=os.environ.get("MINDSPORE_PYTHON", ""),
                        help="the Python of a venv with MindSpore (default: $MINDSPORE_PYTHON)")
    args = parser.parse_args(argv)
    if args.step == "names":
        if not args.mindspore_python:
            parser.error("names: set MINDSPORE_PYTHON (or --mindspore-python) to MindSpore's Python")
        names = read_mindspore_names(args.mindspore_python)
        NAMES.parent.mkdir(exist_ok=True)
        NAMES.write_text(json.dumps(names, indent=1, sort_keys=True) + "\n")
        counts = ", ".join(f"{ns} {len(v)}" for ns, v in names["namespaces"].items())
        print(f"{NAMES.relative_to(ROOT)}: MindSpore {names['mindspore_version']}: {counts}")
        return 0
    TABLE.parent.mkdir(exist_ok=True)
    TABLE.write_text(render(json.loads(NAMES.read_text())))
    print(f"{TABLE.relative_to(ROOT)} written")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
