"""Sweeps: many trials of one experiment, searched with Optuna, tracked as nested MLflow runs.

Modules, one concept each: ``space`` (search-space forms), ``spec`` (file + overrides ->
fixed keys and dimensions), ``metric`` (metric names and directions), ``study`` (the
Optuna study and the rules for counting, retrying and owning trials), ``worker`` (one
process training trials), ``pool`` (local worker processes), ``progress`` (what the parent
reads of the trials from the study while they run), ``live`` (the terminal's live table or
a line per change, and the final table), ``report`` (the parent run, table, figures,
best.yaml), ``runner`` (``train sweep``). Optuna is an optional extra
(``pip install -e '.[sweep]'``), imported inside functions only. Nothing is imported
here eagerly, so ``python -m trainer.sweep.worker`` starts cleanly.
"""

from typing import Any

__all__ = ["SweepOptions", "SweepOutcome", "run_sweep"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import runner

        return getattr(runner, name)
    raise AttributeError(name)
