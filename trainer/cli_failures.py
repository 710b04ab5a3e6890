"""How the ``train`` commands end on failure: one line ``error: ...`` on stderr and the exit
status of its kind (2 bad input, 1 a training failure, 130 Ctrl-C), never a traceback."""

from __future__ import annotations

import typer


def fail(message: str, code: int) -> None:
    from .distributed import fail as fail_ranks

    # one rank of several: `rank R of N failed: ...`, every rank ends (a Ctrl-C that reaches
    # a rank outside training, e.g. while it starts, too: the others may wait in a collective)
    fail_ranks(message, code)
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def guarded(action):
    """Run ``action`` mapping bad input to exit 2 and training failures to exit 1."""
    import signal

    from datasets import DatasetError
    from framework.communication import MissingDependency, RankMismatch
    from framework.errors import LabelError
    from framework.exporter import ExportError
    from framework.serialization import CheckpointError
    from framework.train.loop import TrainingInterrupted

    from .config import ConfigError
    from .executor import UnsavedRun
    from .preflight import InputError
    from .user_code import UserCodeError

    def first_ctrl_c(signum, frame) -> None:
        # the first Ctrl-C outside the training loop ends the command; further ones while it
        # is reported and the process exits are ignored from this instant (an exception
        # handler that set SIG_IGN left a gap a second Ctrl-C could fall in, mid-cleanup)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, first_ctrl_c)  # (the training loop installs its own)
    try:
        return action()
    except TrainingInterrupted:  # saved; a further Ctrl-C while it exits: below
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise
    except (DatasetError, CheckpointError, InputError, ConfigError, UserCodeError,
            FileNotFoundError, IsADirectoryError, MissingDependency, RankMismatch, LabelError,
            ExportError) as error:
        fail(str(error), 2)
    except UnsavedRun as error:  # trained, but nothing holds the result: a failed run
        fail(str(error), 1)
    except KeyboardInterrupt:  # before or after training (inside, trainer/loop.py's guard)
        # further Ctrl-Cs while this one is reported and the process exits are ignored: at
        # exit Python puts back the default disposition of every signal it has a handler for,
        # and a second Ctrl-C then killed the process by the signal (status -2), not 130
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        fail("interrupted", 130)
    except Exception as error:  # noqa: BLE001 - any other failure is a training failure
        fail(f"training failed: {type(error).__name__}: {error}", 1)
