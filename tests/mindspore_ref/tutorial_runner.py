"""Runs a tutorial page's code blocks in order, in one namespace, recording each block's output.

A script, run by :mod:`tests.mindspore_ref.tutorials` with either engine's Python
(``python tutorial_runner.py PLAN.json OUT.json``); it imports nothing from this project
(MindSpore's venv has neither ``framework`` nor pytest). The plan is ``{"engine":
"framework"|"mindspore", "mode": "pynative"|"graph", "blocks": [paths]}``: every block is a
file already rewritten for the engine (graph mode reads ``construct``'s source, so each block
must be a real file). The blocks run as one module, ``tutorial_page``, registered in
``sys.modules`` (MindSpore resolves a graph's globals by module name), after
``set_context(mode=...)``.

Output is captured at the file-descriptor level (what C++ code prints counts too). After
every block ``OUT.json`` is rewritten with ``[{"stdout", "error", "seconds"}, ...]``, so a
page killed for time still leaves the blocks that ran. A block that raises records the
traceback's last line in ``error`` and the page goes on (later blocks may fail in turn).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import time
import types


def _run_block(path: str, namespace: dict) -> dict:
    sys.stdout.flush()
    saved = os.dup(1)
    error = None
    started = time.perf_counter()
    with tempfile.TemporaryFile(mode="w+b") as capture:
        os.dup2(capture.fileno(), 1)
        try:
            with open(path, encoding="utf-8") as handle:
                code = compile(handle.read(), path, "exec")
            exec(code, namespace)  # noqa: S102  (the tutorial's own code, by design)
        except BaseException as exc:  # noqa: BLE001  (a failing block is a result)
            kind = type(exc)
            name = kind.__qualname__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__qualname__}"
            lines = str(exc).strip().splitlines()  # the message's first line, not its notes
            error = f"{name}: {lines[0] if lines else ''}"[:400]
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        out = capture.read().decode("utf-8", "replace")
    return {"stdout": out, "error": error, "seconds": round(time.perf_counter() - started, 2)}


def main(argv: list[str]) -> None:
    plan_path, out_path = argv
    with open(plan_path, encoding="utf-8") as handle:
        plan = json.load(handle)
    engine = importlib.import_module(plan["engine"])
    engine.set_context(mode=engine.GRAPH_MODE if plan["mode"] == "graph" else engine.PYNATIVE_MODE)
    module = types.ModuleType("tutorial_page")
    sys.modules["tutorial_page"] = module
    results: list[dict] = []
    for path in plan["blocks"]:
        module.__dict__["__file__"] = path
        results.append(_run_block(path, module.__dict__))
        with open(out_path, "w", encoding="utf-8") as handle:
            json.dump(results, handle)


if __name__ == "__main__":
    main(sys.argv[1:])
