"""The command lines the README and docs/ show, read from their fenced ``bash`` blocks.

A command is one logical line: comments stripped, ``\\`` continuations and indented
continuation lines (the README's wrapped synopsis) joined, whitespace collapsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_FENCES = {"bash", "sh", "shell", "console"}
# what a line of a non-bash block must not start with: a command would go unchecked there
COMMAND_WORDS = ("train ", "make ", "mpirun ", "mpiexec ", "mlflow ", "python ", "curl ", "pip ")


@dataclass(frozen=True)
class Command:
    file: str
    line: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def strip_comment(line: str) -> str:
    """The line without its shell comment: a ``#`` outside quotes, at the start or after a blank."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def _blocks(path: Path) -> list[tuple[str, list[tuple[int, str]]]]:
    """Every fenced block of a Markdown file: its language and its numbered lines."""
    blocks: list[tuple[str, list[tuple[int, str]]]] = []
    current: list[tuple[int, str]] | None = None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fence = re.match(r"\s*```(\S*)", line)
        if fence and current is None:
            current = []
            blocks.append((fence.group(1), current))
        elif fence:
            current = None
        elif current is not None:
            current.append((number, line))
    return blocks


def commands(path: Path) -> list[Command]:
    name = path.relative_to(ROOT).as_posix()
    found: list[Command] = []
    for language, lines in _blocks(path):
        if language not in SHELL_FENCES:
            continue
        start, parts, continued = 0, [], False
        for number, raw in lines:
            text = strip_comment(raw)
            if not text.strip():
                continued = False
                continue
            if parts and (continued or raw[:1].isspace()):
                parts.append(text.strip())
            else:
                if parts:
                    found.append(Command(name, start, " ".join(" ".join(parts).split())))
                start, parts = number, [text.strip()]
            continued = parts[-1].endswith("\\")
            if continued:
                parts[-1] = parts[-1][:-1]
        if parts:
            found.append(Command(name, start, " ".join(" ".join(parts).split())))
    return found


def all_commands() -> list[Command]:
    return [command for path in doc_files() for command in commands(path)]


def unmarked_command_lines() -> list[str]:
    """``file:line`` of command-like lines in fenced blocks that are not marked ``bash``."""
    bad = []
    for path in doc_files():
        for language, lines in _blocks(path):
            if language in SHELL_FENCES or language in ("python", "yaml"):
                continue
            bad += [f"{path.relative_to(ROOT).as_posix()}:{n}" for n, line in lines
                    if line.startswith(COMMAND_WORDS)]
    return bad


def flags(text: str) -> list[str]:
    """The long and short options a command line names (``--mode``, ``-p``)."""
    return re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", text)
