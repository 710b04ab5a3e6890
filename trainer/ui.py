"""``train ui``: MLflow's UI server as a child process group that Ctrl-C stops, twice at once.

- ``--port`` outside 1..65535, or a port already in use, is bad input (one line, exit 2),
  checked before the server starts (MLflow printed a traceback and exited 0); a port
  taken while the server starts is reported the same way.
- The server is a process group of its own led by this module (``python -m trainer.ui
  URI PORT``), which runs ``python -m mlflow ui`` with one uvicorn worker and without
  MLflow's job runner (``MLFLOW_SERVER_ENABLE_JOB_EXECUTION`` set by the user wins): three
  processes where MLflow's defaults start sixteen. The group leader stops the whole group
  when it gets SIGTERM or SIGHUP, and gets SIGTERM itself when ``train ui`` dies, even by
  SIGKILL (``PR_SET_PDEATHSIG``): a closed terminal leaves no MLflow process behind.
- :func:`serve` prints the UI's address once the server answers (``/health``), not
  before. The first Ctrl-C forwards one SIGINT to the group (a graceful stop, which waits
  for open browser connections); a second kills the group at once, as the message says.
  Exit 130 then; SIGTERM or SIGHUP stop the group too (exit 128 + the signal). A server
  that exits by itself passes its exit status on; one that exits before it answered is an
  error (exit 2 for a port taken meanwhile, else its status or 1).
- While it runs, the port is recorded for its store (:func:`running_port`), so a run's
  summary links to this UI (:func:`ui_base_url`) rather than to port 5000.
- ``--host`` (default 127.0.0.1: this machine only) is the address it listens on. What
  MLflow prints that is not for a ``train ui`` user is left out: the deprecation warning of
  a module MLflow imports, the registry-store notice, and on a local address the advice to
  use ``--host 0.0.0.0`` (it is MLflow's option; ``train ui --host`` is this one).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from framework._io import shared_temp_folder

DEFAULT_PORT = 5000
DEFAULT_HOST = "127.0.0.1"
STOP_SECONDS = 5  # a graceful stop's wait before SIGKILL
# what MLflow's server prints that a train ui user has no use for (see the module docstring)
QUIET_WARNINGS = "ignore:starlette.middleware.wsgi is deprecated"
LOCAL_ADVICE = "[MLflow] Security middleware enabled with default settings (localhost-only)."
WILDCARDS = ("0.0.0.0", "::", "")


class PortError(ValueError):
    """A ``--port`` the UI cannot listen on."""


def _reachable(host: str) -> str:
    """The address this machine reaches a server listening on ``host`` at."""
    return DEFAULT_HOST if host in WILDCARDS else host


def check_port(port: int, host: str = DEFAULT_HOST) -> None:
    if not 1 <= port <= 65535:
        raise PortError(f"--port must be in 1..65535, got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise PortError(f"--port {port}: cannot listen on {host}:{port} ({error.strerror or error}); "
                            "choose another port, e.g. --port 5001") from None


def ui_url(port: int, host: str = DEFAULT_HOST) -> str:
    host = _reachable(host)
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/#/experiments?workflowType=machine_learning"


# -- which port serves a store -------------------------------------------------------------------
def _state_file(uri: str) -> Path:
    return shared_temp_folder("twinmode-ui") / f"{hashlib.sha256(uri.encode()).hexdigest()[:16]}.json"


def running_port(uri: str) -> int | None:
    """The port of a ``train ui`` serving store ``uri`` now (its process alive, its port
    open), else None (a record left by a killed ``train ui`` is removed)."""
    path = _state_file(uri)
    try:
        state = json.loads(path.read_text())
        port = int(state["port"])
        if state["uri"] != uri:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        try:
            os.kill(int(state["pid"]), 0)
        except PermissionError:
            pass  # another user's train ui: alive
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return port
    except (OSError, ValueError, TypeError):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass
        return None


def ui_base_url(uri: str) -> str:
    """Where the UI of store ``uri`` is: the server itself for ``http(s)://``, else a running
    ``train ui``'s port, else ``train ui``'s default port."""
    if uri.startswith(("http://", "https://")):
        return uri.rstrip("/")
    return f"http://127.0.0.1:{running_port(uri) or DEFAULT_PORT}"


# -- the server's process group ------------------------------------------------------------------
def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _lead_group(uri: str, port: int, host: str = DEFAULT_HOST) -> int:
    """The group leader (``python -m trainer.ui``): runs MLflow's server in this process
    group, passing its output on but for the lines of :data:`QUIET_WARNINGS` and
    :data:`LOCAL_ADVICE`; SIGTERM or SIGHUP stop the group (SIGTERM, then SIGKILL after
    STOP_SECONDS); SIGINT reaches the server from ``train ui`` and is the server's to handle."""
    os.environ.setdefault("MLFLOW_SERVER_ENABLE_JOB_EXECUTION", "false")
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (os.environ.get("PYTHONWARNINGS"),
                                                          QUIET_WARNINGS)))
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        # no wait in here: the main thread's server.wait() holds Popen's lock (a wait in the
        # handler would time out); it returns once the server stopped, or the timer kills all
        if not stopping.is_set():
            stopping.set()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            _signal_group(0, signal.SIGTERM)
            threading.Timer(STOP_SECONDS, _signal_group, (0, signal.SIGKILL)).start()

    # handlers, not SIG_IGN, before the server starts: an ignored signal stays ignored in
    # the server (exec keeps it), a handler does not
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    server = subprocess.Popen([sys.executable, "-m", "mlflow", "ui", "--backend-store-uri", uri,
                               "--registry-store-uri", uri, "--host", host, "--port", str(port),
                               "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
    local = host not in WILDCARDS and _reachable(host) in (DEFAULT_HOST, "localhost", "::1")
    for line in server.stdout:
        if not (local and line.startswith(LOCAL_ADVICE)):
            sys.stderr.write(line)
            sys.stderr.flush()
    code = server.wait()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _signal_group(0, signal.SIGKILL if stopping.is_set() else signal.SIGTERM)  # what outlived it
    return code


# -- train ui -----------------------------------------------------------------------------------
class _Stop(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signum)


def _answers(port: int, host: str = DEFAULT_HOST) -> bool:
    address = _reachable(host)
    address = f"[{address}]" if ":" in address else address
    try:
        with urllib.request.urlopen(f"http://{address}:{port}/health", timeout=2) as reply:
            return reply.status == 200
    except (OSError, ValueError):
        return False


def _record(uri: str, port: int) -> Path | None:
    try:
        path = _state_file(uri)
        path.write_text(json.dumps({"uri": uri, "port": port, "pid": os.getpid()}))
        return path
    except OSError:
        return None


def serve(uri: str, port: int, echo: Callable[[str], object] = print,
          ready: Callable[[str], object] | None = None, host: str = DEFAULT_HOST) -> int:
    """Run the UI for store ``uri`` on ``host:port`` (:func:`check_port` first) until it ends
    or Ctrl-C; its exit status. ``ready(url)`` is called once the server answers (default:
    ``echo`` a line with the URL)."""
    ready = ready or (lambda url: echo(f"MLflow UI for {uri}: {url}  (Ctrl-C stops it)"))
    process = subprocess.Popen([sys.executable, "-m", "trainer.ui", uri, str(port), host], process_group=0,
                               preexec_fn=_die_with_parent if sys.platform == "linux" else None)
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    interrupts, recorded = [], None

    def on_interrupt(signum, frame) -> None:  # in the handler: no gap a second Ctrl-C can fall in
        interrupts.append(signum)
        if len(interrupts) == 1:
            _signal_group(process.pid, signal.SIGINT)
            echo("stopping the MLflow UI (press Ctrl-C again to stop it at once)")
        else:
            _signal_group(process.pid, signal.SIGKILL)

    previous[signal.SIGINT] = signal.signal(signal.SIGINT, on_interrupt)
    try:
        while process.poll() is None and not interrupts:
            if _answers(port, host):
                recorded = _record(uri, port)
                ready(ui_url(port, host))
                break
            time.sleep(0.25)
        code = process.wait()  # (a handler runs, then the wait goes on: PEP 475)
        if interrupts:
            _signal_group(process.pid, signal.SIGKILL)  # leftovers of the group
            return 130
        if recorded is None:  # it never answered (MLflow's `ui` exits 0 when uvicorn fails)
            try:
                check_port(port, host)
            except PortError as error:  # taken while the server started
                echo(f"error: {error}")
                return 2
            echo(f"error: the MLflow UI stopped before it answered (exit status {code}; its messages "
                 "are above)")
            return code or 1
        return code
    except _Stop as stop:
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_SECONDS + 2)
        except subprocess.TimeoutExpired:
            pass
        _signal_group(process.pid, signal.SIGKILL)
        return 128 + stop.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if recorded is not None:
            recorded.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(_lead_group(sys.argv[1], int(sys.argv[2]), *sys.argv[3:4]))
