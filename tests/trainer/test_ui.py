"""Issue 27, item 8: ``train ui`` says where it is only once the server answers, runs a
small process group that nothing outlives (a closed terminal, or ``train ui`` killed
outright, left eight MLflow processes), makes a busy port a one-line exit 2 even when it
is taken while the server starts, and lets a run's summary link to the port it serves.

Real ``train ui`` processes on free ports of this machine (each start takes seconds)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

UI = [sys.executable, "-m", "trainer.cli", "ui"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def session(sid: int) -> list[str]:
    """The live processes of session ``sid`` (zombies an init does not reap count as gone)."""
    rows = subprocess.run(["ps", "-ww", "-eo", "pid=,sid=,stat=,args="], capture_output=True,
                          text=True).stdout.splitlines()
    return [r for r in rows if r.split()[1] == str(sid) and not r.split()[2].startswith("Z")]


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def start(folder: Path, port: int, *extra: str) -> tuple[subprocess.Popen, list[tuple[float, str, bool]]]:
    """``train ui`` in its own session; its output lines (stdout and stderr) as (time, line,
    whether the server answered when the line came)."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    ui = subprocess.Popen([*UI, "--port", str(port), *extra], cwd=folder, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[tuple[float, str, bool]] = []

    def read() -> None:
        for line in ui.stdout:
            lines.append((time.monotonic(), line.rstrip(), f"127.0.0.1:{port}/" in line and answers(port)))

    threading.Thread(target=read, daemon=True).start()
    return ui, lines


def kill_session(sid: int) -> None:
    for row in session(sid):
        try:
            os.kill(int(row.split()[0]), signal.SIGKILL)
        except OSError:
            pass


def test_a_port_busy_on_every_interface_is_one_line_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*UI, "--port", str(port)], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: --port {port}: cannot listen on 127.0.0.1:{port} (Address already in use); "
        "choose another port, e.g. --port 5001"]


def wait_until_it_answers(ui: subprocess.Popen, port: int, lines: list) -> None:
    deadline = time.monotonic() + 180
    while not answers(port):
        assert ui.poll() is None and time.monotonic() < deadline, lines
        time.sleep(0.2)


@pytest.mark.slow
def test_the_address_is_printed_once_the_server_answers(tmp_path: Path) -> None:
    port = free_port()
    ui, lines = start(tmp_path, port)
    try:
        wait_until_it_answers(ui, port, lines)
        time.sleep(1.0)
        addresses = [entry for entry in lines if f"127.0.0.1:{port}/" in entry[1]]
        assert all(answered for _, _, answered in addresses), f"address before the server answered: {lines}"
        assert [line for _, line, _ in addresses] == [
            f"MLflow UI for sqlite:///{tmp_path / 'mlflow.db'}: http://127.0.0.1:{port}/#/experiments"
            "?workflowType=machine_learning  (Ctrl-C stops it)"]
        os.kill(ui.pid, signal.SIGINT)
        assert ui.wait(timeout=30) == 130
    finally:
        kill_session(ui.pid)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP])
def test_nothing_outlives_train_ui_and_runs_link_to_its_port(tmp_path: Path, sig: int) -> None:
    from trainer.mlflow_logger import MLflowRun
    from trainer.ui import running_port

    port = free_port()
    ui, lines = start(tmp_path, port)
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    try:
        wait_until_it_answers(ui, port, lines)
        time.sleep(1.0)  # (the address is recorded right after the first answer)
        processes = session(ui.pid)
        assert len(processes) <= 4, processes  # train ui, its group leader, mlflow ui, uvicorn
        assert running_port(store) == port  # a run of this store links to this port, not 5000
        run = MLflowRun(store, "linked", "r", offline_dir=tmp_path / "offline")
        assert run.url.startswith(f"http://127.0.0.1:{port}/#/experiments/")
        run.end()
        os.kill(ui.pid, sig)  # SIGHUP: the terminal closed; SIGKILL: no chance to clean up
        ui.wait(timeout=30)
        deadline = time.monotonic() + 20
        while session(ui.pid) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert session(ui.pid) == []  # the server, its worker: all gone
        assert ui.returncode == (128 + sig if sig == signal.SIGHUP else -sig)
        assert running_port(store) is None
    finally:
        kill_session(ui.pid)


@pytest.mark.slow
def test_a_port_taken_while_the_server_starts_is_one_line_exit_2(tmp_path: Path) -> None:
    port = free_port()
    ui, lines = start(tmp_path, port)
    try:
        time.sleep(0.5)  # MLflow takes seconds to import: the port is still free here
        with socket.socket() as thief:
            thief.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            thief.bind(("127.0.0.1", port))
            thief.listen()
            assert ui.wait(timeout=180) == 2, lines
        time.sleep(0.2)
        assert lines[-1][1] == (f"error: --port {port}: cannot listen on 127.0.0.1:{port} (Address "
                                "already in use); choose another port, e.g. --port 5001")
        assert not any("(Ctrl-C stops it)" in line for _, line, _ in lines)  # never said it was up
    finally:
        kill_session(ui.pid)


def test_a_killed_ui_s_record_is_not_believed(tmp_path: Path) -> None:
    from trainer.ui import _state_file, running_port, ui_base_url

    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    record = _state_file(store)
    record.write_text(f'{{"uri": "{store}", "port": {free_port()}, "pid": {dead}}}')
    assert running_port(store) is None and not record.exists()  # gone, and forgotten
    assert ui_base_url(store) == "http://127.0.0.1:5000"  # train ui's default port


@pytest.mark.slow
def test_it_prints_nothing_meant_for_mlflow_s_own_command_and_takes_host(tmp_path: Path) -> None:
    port = free_port()
    ui, lines = start(tmp_path, port, "--host", "127.0.0.1")
    try:
        wait_until_it_answers(ui, port, lines)
        time.sleep(2.0)  # MLflow's start-up lines are all out by now
        os.kill(ui.pid, signal.SIGINT)
        assert ui.wait(timeout=30) == 130
    finally:
        kill_session(ui.pid)
    text = "\n".join(line for _, line, _ in lines)
    assert "(Ctrl-C stops it)" in text
    for noise in ("DeprecationWarning", "--host 0.0.0.0", "Registry store URI not provided"):
        assert noise not in text, text
    usage = subprocess.run([*UI, "--help"], capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "80"})
    assert "--host" in usage.stdout and "127.0.0.1" in usage.stdout
