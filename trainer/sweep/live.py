"""The sweep's view of its trials while they run, and the table it ends with.

On a terminal, a table of the trials is redrawn in place (``rich.live``) each time the pool
polls its workers: trial (``*`` the best so far), one column per swept key, state
(starting, running, complete, pruned, failed, interrupted), the epoch in progress and how
far through it (``2/3 40%``), the metric (a running trial's last reported value with its
epoch, ``0.8600 @ep2``; an ended one's value), time; under it the best trial so far and the
latest notes (errors, retries); lines the workers print appear above it. Otherwise (piped,
a log file, ``TERM=dumb``), one plain line per change (:func:`trainer.sweep.progress.changes`).
Either way the sweep ends with the whole table (a Markdown table when not a terminal), the
notes, and the parent run's MLflow address. Everything shown is read from the study
(:mod:`trainer.sweep.progress`), so trials of other machines show too.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from .metric import Metric
from .progress import COMPLETE, TrialView, announced, best_of, changes, read_trials, show_params, show_value

STYLES = {"starting": "dim", "running": "cyan", "complete": "green", "pruned": "yellow",
          "failed": "red", "interrupted": "magenta"}
NOTES_SHOWN = 3  # on a terminal, the latest notes (errors, retries) under the table


def _isatty(stream: Any) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def short_names(keys: list[str]) -> dict[str, str]:
    """Each dotted key's last part where no other key shares it, else the whole key."""
    last = [k.rsplit(".", 1)[-1] for k in keys]
    return {k: (t if last.count(t) == 1 else k) for k, t in zip(keys, last)}


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _epoch(view: TrialView) -> str:
    if view.epoch is None:
        return ""
    if view.ended or (view.epochs and view.done >= view.epochs):
        return f"{view.done}/{view.epochs}" if view.epochs else str(view.done)
    epoch, step = (view.epoch, view.step or 0) if view.done < view.epoch else (view.done + 1, 0)
    text = f"{epoch}/{view.epochs}" if view.epochs else str(epoch)
    return text + (f" {100 * step // view.steps}%" if view.steps else "")


def _value(view: TrialView) -> str:
    if view.value is None:
        return ""
    return f"{view.value:.4f}" if view.state == COMPLETE else f"{view.value:.4f} @ep{view.value_epoch}"


def trials_table(views: list[TrialView], keys: list[str], metric: Metric, best: TrialView | None,
                 title: str = "", plain: bool = False) -> Any:
    """A ``rich`` table of ``views``: one row each, the best marked ``*``; ``plain``: a
    Markdown table without colours (for a log)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    names = short_names(keys)
    table = Table(title=Text(title), box=box.MARKDOWN if plain else box.SIMPLE_HEAD, title_justify="left",
                  pad_edge=plain, title_style=None if plain else "bold")
    table.add_column("trial", justify="right", no_wrap=True)
    for key in keys:
        table.add_column(names[key], justify="right", no_wrap=True, max_width=24)
    table.add_column("state", no_wrap=True)
    table.add_column("epoch", justify="right", no_wrap=True)
    table.add_column(metric.name, justify="right", no_wrap=True)
    table.add_column("time", justify="right", no_wrap=True)
    for view in views:
        mark = best is not None and view.number == best.number
        row = [f"{'*' if mark else ''}{view.number}", *(show_value(view.params.get(k, "")) for k in keys),
               view.state, _epoch(view), _value(view), _clock(view.seconds)]
        style = None if plain else ("bold " if mark else "") + STYLES[view.state]
        table.add_row(*map(Text, row), style=style)
    return table


def notes(views: list[TrialView]) -> list[str]:
    """What the table has no room for: why trials failed or were interrupted, retries."""
    lines = []
    for view in views:
        retry = f"retry of trial {view.retry_of}" if view.retry_of is not None else ""
        if view.note or retry:
            lines.append(f"trial {view.number} {view.state}: "
                         + "; ".join(text for text in (retry, view.note) if text))
    return lines


def best_line(best: TrialView | None, metric: Metric) -> str:
    if best is None:
        return "best so far: none (no trial complete yet)"
    return f"best so far: trial {best.number}, {metric.name} {best.value:.4f} [{show_params(best.params)}]"


class SweepView:
    """The trials of ``study`` shown while the pool runs: ``tick()`` after each poll,
    ``note(line)`` for a worker's output, ``final(url)`` at the end; a context manager around
    the pool (the terminal's table is started and stopped with it)."""

    def __init__(self, study: Any, metric: Metric, keys: list[str], target: int,
                 echo: Callable[[str], Any] = print, console: Any = None) -> None:
        """``console``: a ``rich`` console to redraw the table on (default: one on stdout
        when stdout is a terminal other than ``TERM=dumb``; else plain lines go to ``echo``)."""
        from rich.console import Console

        self.study, self.metric, self.keys, self.target, self.echo = study, metric, keys, target, echo
        self.live_mode = console is not None or (
            _isatty(sys.stdout) and os.environ.get("TERM", "") not in ("dumb", "unknown"))
        self.console = console or Console(file=sys.stdout, highlight=False, force_terminal=self.live_mode)
        self.seen: dict[int, TrialView] = {}
        self.started = time.monotonic()
        self._live: Any = None

    def _read(self) -> list[TrialView] | None:
        try:
            return read_trials(self.study)
        except Exception:  # noqa: BLE001 - a busy database: the next poll shows it
            return None

    def _title(self, views: list[TrialView], hidden: int) -> str:
        done = sum(v.counted for v in views)
        running = sum(not v.ended for v in views)
        return (f"sweep {self.study.name}: {done}/{self.target} trials done"
                + (f" ({hidden} not shown)" if hidden else "")
                + f", {running} running, {_clock(time.monotonic() - self.started)}")

    def _fitted(self, views: list[TrialView], best: TrialView | None) -> list[TrialView]:
        """The rows that fit the terminal: every running trial, the best, the latest ended."""
        room = max(self.console.height - 8 - NOTES_SHOWN, 4)
        if len(views) <= room:
            return views
        keep = {v.number for v in views if not v.ended} | ({best.number} if best else set())
        for view in reversed(views):
            if len(keep) >= room:
                break
            keep.add(view.number)
        return [v for v in views if v.number in keep]

    def _render(self, views: list[TrialView]) -> Any:
        """The table that fits the terminal, the best so far and the latest notes under it."""
        from rich.console import Group
        from rich.text import Text

        best = best_of(views, self.metric.direction)
        shown = self._fitted(views, best)
        under = [best_line(best, self.metric), *notes(views)[-NOTES_SHOWN:]]
        title = self._title(views, len(views) - len(shown))
        return Group(trials_table(shown, self.keys, self.metric, best, title),
                     *(Text(line, no_wrap=True, overflow="ellipsis") for line in under))

    def __enter__(self) -> SweepView:
        from rich.live import Live

        views = self._read() or []
        self.seen = {v.number: v for v in views}
        if self.live_mode:
            self._live = Live(self._render(views), console=self.console, refresh_per_second=4,
                              transient=True, redirect_stdout=True, redirect_stderr=True)
            self._live.start()
        return self

    def tick(self) -> None:
        """Read the study again: redraw the table, or print what changed."""
        views = self._read()
        if views is None:
            return
        if self._live is not None:
            self._live.update(self._render(views), refresh=True)
        else:
            best = best_of(views, self.metric.direction)
            for line, problem in changes(self.seen, views, self.metric, best):
                if problem:
                    print(line, file=sys.stderr, flush=True)
                else:
                    self.echo(line)
        self.seen.update({v.number: v for v in announced(views)})

    def note(self, line: str, err: bool = False) -> None:
        """A line a worker printed: above the table, or as it is."""
        if self._live is not None:
            from rich.text import Text

            self._live.console.print(Text(line))
        elif err:
            print(line, file=sys.stderr, flush=True)
        else:
            self.echo(line)

    def __exit__(self, *exc: Any) -> None:
        try:
            if exc[0] is None:
                self.tick()
        finally:
            if self._live is not None:
                self._live.stop()
                self._live = None

    def final(self, url: str | None) -> None:
        """The whole table (the best marked ``*``), the notes, the parent run's address."""
        views = self._read() or list(self.seen.values())
        best = best_of(views, self.metric.direction)
        running = sum(not v.ended for v in views)
        title = (f"sweep {self.study.name}: {sum(v.counted for v in views)}/{self.target} trials done"
                 + (f", {running} still running" if running else ""))
        table = trials_table(views, self.keys, self.metric, best, title, plain=not self.live_mode)
        if self.live_mode:
            self.console.print(table)
        else:
            from rich.console import Console

            out = io.StringIO()
            Console(file=out, width=200, no_color=True, highlight=False).print(table)
            self.echo("\n".join(line.rstrip() for line in out.getvalue().splitlines() if line.strip()))
        for line in notes(views):
            self.echo(line)
        self.echo(f"MLflow parent run: {url or 'none (offline: train sync-offline imports it)'}")
