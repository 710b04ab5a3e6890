"""``train ui``: MLflow's UI server as a child process that Ctrl-C stops, twice at once.

- ``--port`` outside 1..65535, or a port already in use, is bad input (one line, exit 2),
  checked before the server starts (MLflow printed a traceback and exited 0).
- The server (``python -m mlflow ui``: uvicorn and its workers, MLflow's job runner) runs
  in its own process group, so the terminal's Ctrl-C reaches only this process. The first
  Ctrl-C forwards one SIGINT to the group (a graceful stop, which waits for open browser
  connections); a second kills the group at once, as the message says. Exit 130 then.
- SIGTERM or SIGHUP stop the group too; a killed ``train ui`` takes the server's main
  process with it (``PR_SET_PDEATHSIG``). A server that exits by itself passes its exit
  status on.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys


class PortError(ValueError):
    """A ``--port`` the UI cannot listen on."""


def check_port(port: int, host: str = "127.0.0.1") -> None:
    if not 1 <= port <= 65535:
        raise PortError(f"--port must be in 1..65535, got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise PortError(f"--port {port}: cannot listen on {host}:{port} ({error.strerror or error}); "
                            "choose another port, e.g. --port 5001") from None


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


class _Stop(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signum)


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def serve(uri: str, port: int, echo=print) -> int:
    """Run the UI for store ``uri`` on ``port`` (:func:`check_port` first) until it ends or
    Ctrl-C; its exit status. SIGTERM or SIGHUP (the terminal closed) stop the server's group
    too, as they stopped the server when it was this process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "ui", "--backend-store-uri", uri, "--port", str(port)],
        process_group=0, preexec_fn=_die_with_parent if sys.platform == "linux" else None)
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    interrupts = []

    def on_interrupt(signum, frame) -> None:  # in the handler: no gap a second Ctrl-C can fall in
        interrupts.append(signum)
        if len(interrupts) == 1:
            _signal_group(process, signal.SIGINT)
            echo("stopping the MLflow UI (press Ctrl-C again to stop it at once)")
        else:
            _signal_group(process, signal.SIGKILL)

    previous[signal.SIGINT] = signal.signal(signal.SIGINT, on_interrupt)
    try:
        code = process.wait()  # (a handler runs, then the wait goes on: PEP 475)
        if not interrupts:
            return code
        _signal_group(process, signal.SIGKILL)  # leftovers of the group (workers, job runner)
        return 130
    except _Stop as stop:
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        _signal_group(process, signal.SIGKILL)
        return 128 + stop.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
