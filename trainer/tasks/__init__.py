"""The tasks the trainer runs (``task:`` in an experiment file); the contract is in
trainer/tasks/base.py. A new task: a module with a ``Task`` subclass, one line here."""

from __future__ import annotations

from typing import Any

from ..config_checks import TASK_SCHEMAS
from .base import Task, TaskData
from .classification import ClassificationTask
from .language_model import LanguageModelTask

TASKS: dict[str, Task] = {t.name: t for t in (ClassificationTask(), LanguageModelTask())}
TASK_SCHEMAS.update(TASKS)  # the schema's checks read the tasks' keys, checks and zoos


def task_of(config: Any) -> Task:
    return TASKS[config.task]


__all__ = ["TASKS", "Task", "TaskData", "task_of"]
