"""``train run ... --nproc N``: start the N ranks of a data-parallel job with ``mpiexec``.

The launcher is MPICH's ``mpiexec`` (hydra) from the ``dist`` extra (the venv's ``bin``
first, then ``PATH``); each rank runs ``python -m trainer.cli`` with the same arguments,
sees that an MPI launcher started it and joins the job (:mod:`trainer.distributed`).
``hosts`` go to ``mpiexec -hosts a,b`` (MPICH's syntax, ``host:slots`` allowed; hydra
reaches other machines over ssh, which must work without a password, with this project
installed at the same path on every machine and a checkpoint folder they share).

Threads: each rank's kernels get ``cores // N`` threads (``OMP_NUM_THREADS``,
``TVM_NUM_THREADS`` ...; 1 per rank with ``hosts``) unless the environment sets them.

Faults: when a rank dies, hydra ends the others at once and prints a multi-line banner
naming only a pid. The launcher forwards the ranks' output, replaces that banner with one
line naming the rank (each rank leaves ``<pid>.rank`` in a folder given by
``TWINMODE_DIST_RANKS_DIR``), and returns the job's exit code. A rank that stops
answering is ended by the collective timeout (``dist.timeout``), which prints its own line.

Ctrl-C: ``mpiexec`` runs in its own process group, so a terminal's Ctrl-C reaches the
launcher alone, which passes one SIGINT to ``mpiexec`` per Ctrl-C (hydra forwards it to
the ranks; a second one aborts the job without saving); hydra's own lines about it are
dropped, so the job ends with rank 0's one line and exit code 130. SIGTERM and SIGHUP
(a closed terminal) are passed on to ``mpiexec`` too, and it gets SIGTERM when the
launcher dies (Linux), so no rank outlives the launcher.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO

from .distributed import RANKS_DIR_ENV

# thread pools of the ranks' kernels: NumPy's BLAS, OpenMP, TVM's runtime
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TVM_NUM_THREADS")
INSTALL_HINT = "pip install -e '.[dist]' in the project's folder (mpi4py + mpich)"
_BANNER = re.compile(r"^(=+|=   .*|YOUR APPLICATION TERMINATED.*|This typically refers.*|"
                     r"Please see the FAQ.*|Abort\(\d+\) on node .*)$")
# hydra's lines about a Ctrl-C it forwards
_HYDRA_INTERRUPT = re.compile(r"^(\[mpiexec@[^]]*\] (Sending Ctrl-C|Press Ctrl-C again)|Ctrl-C caught)")
# a rank that explains the job's end itself (the launcher adds no line of its own)
_REPORTED = re.compile(r"^(rank \d+ of \d+ failed: |collective timeout: )")


class LaunchError(RuntimeError):
    """The job cannot be started (the ``dist`` extra is missing, a bad host list)."""


def find_mpiexec() -> str | None:
    """``mpiexec`` beside this Python (the venv's, from the mpich wheel), else on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    return shutil.which("mpiexec")


def command(nproc: int, hosts: list[str] | None, argv: list[str]) -> list[str]:
    """The ``mpiexec`` command line of the job; a LaunchError when MPI is not installed."""
    mpiexec = find_mpiexec()
    absent = [name for name, gone in (("mpi4py", importlib.util.find_spec("mpi4py") is None),
                                      ("mpiexec", mpiexec is None)) if gone]
    if absent:
        missing = " and ".join(absent)
        raise LaunchError(f"--nproc {nproc} needs MPI ({missing} not found): {INSTALL_HINT}")
    from framework.communication import timeout

    try:
        timeout()  # a bad TWINMODE_COLLECTIVE_TIMEOUT: one line here, not one per rank
    except ValueError as error:
        raise LaunchError(str(error)) from None
    bad = [h for h in hosts or [] if not re.fullmatch(r"[A-Za-z0-9._-]+(:\d+)?", h)]
    if bad:
        raise LaunchError(f"dist.hosts: {bad[0]!r} is not a host name (host or host:slots)")
    cmd = [mpiexec, "-n", str(nproc)]
    if hosts:
        cmd += ["-hosts", ",".join(hosts)]
    return cmd + [sys.executable, "-m", "trainer.cli", *argv]


def launch(nproc: int, hosts: list[str] | None, argv: list[str]) -> int:
    """Run the job to its end; its exit code (the failing rank named in one line)."""
    cmd = command(nproc, hosts, argv)
    ranks_dir = tempfile.mkdtemp(prefix="twinmode-ranks-")
    env = _job_env(nproc, hosts, ranks_dir)
    seen: dict[str, str] = {}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            process_group=0,  # a terminal's Ctrl-C is the launcher's to pass on
                            preexec_fn=_end_with_parent)
    forwarded = _forward_signals(proc, seen)
    pumps = [threading.Thread(target=_pump, args=(src, dst, seen), daemon=True)
             for src, dst in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))]
    for pump in pumps:
        pump.start()
    code = _wait(proc)
    for sig, previous in forwarded.items():
        signal.signal(sig, previous)
    for pump in pumps:
        pump.join(timeout=5)
    try:
        return _outcome(code, seen, ranks_dir, nproc)
    finally:
        shutil.rmtree(ranks_dir, ignore_errors=True)


def _job_env(nproc: int, hosts: list[str] | None, ranks_dir: str) -> dict[str, str]:
    """The ranks' environment: where they leave ``<pid>.rank``, and ``cores // nproc``
    threads per rank (1 with ``hosts``) unless the environment sets them."""
    env = dict(os.environ, **{RANKS_DIR_ENV: ranks_dir})
    threads = str(max(1, (os.cpu_count() or 1) // nproc)) if not hosts else "1"
    for var in THREAD_VARS:  # N ranks share the cores: no oversubscription (unless asked for)
        env.setdefault(var, threads)
    return env


def _forward_signals(proc: subprocess.Popen, seen: dict[str, str]) -> dict[int, object]:
    """Pass SIGTERM and SIGHUP on to ``mpiexec`` (noting the signal in ``seen``); the
    handlers replaced, to put back (none off the main thread, where signals cannot be set)."""
    def forward(signum: int, _: object) -> None:
        seen["signal"] = signal.Signals(signum).name
        proc.send_signal(signum)

    return {sig: signal.signal(sig, forward)
            for sig in (signal.SIGTERM, signal.SIGHUP)
            if threading.current_thread() is threading.main_thread()}


def _wait(proc: subprocess.Popen) -> int:
    """``mpiexec``'s exit code; each Ctrl-C meanwhile is passed on to it as one SIGINT."""
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:  # hydra passes the interrupt on to the ranks
            proc.send_signal(signal.SIGINT)


def _outcome(code: int, seen: dict[str, str], ranks_dir: str, nproc: int) -> int:
    """The launcher's exit code, after one line on stderr saying why the job failed (unless
    a rank said so itself)."""
    if code != 0 and "signal" in seen:  # the ranks were told to stop: not their failure
        sys.stderr.write(f"error: the job was stopped ({seen['signal']}); the last checkpoint is kept\n")
        sys.stderr.flush()
        return 128 + signal.Signals[seen["signal"]].value
    if code != 0 and "pid" in seen and "reported" not in seen:
        sys.stderr.write(f"error: {_who(seen, ranks_dir, nproc)} ended ({seen.get('why', 'exit code')}"
                         f"); the other ranks were stopped\n")
        sys.stderr.flush()
    return code if 0 <= code < 256 else 1


def _end_with_parent() -> None:
    """In the child, before exec (Linux): SIGTERM when the launcher dies, even by SIGKILL,
    so ``mpiexec`` (in its own process group) ends the ranks instead of outliving it."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _who(seen: dict[str, str], ranks_dir: str, nproc: int) -> str:
    try:
        rank = Path(ranks_dir, f"{seen['pid']}.rank").read_text().strip()
        return f"rank {rank} of {nproc} (pid {seen['pid']})"
    except OSError:
        return f"a rank (pid {seen['pid']}, before it joined the job)"


def _pump(src: IO[bytes], dst: IO[str], seen: dict[str, str]) -> None:
    """Copy ``src`` to ``dst`` line by line, keeping hydra's failure banner out."""
    out = dst.buffer if hasattr(dst, "buffer") else None
    blank = b""  # an empty line is held back: hydra's banner starts with one
    for raw in iter(src.readline, b""):
        text = raw.decode(errors="replace").rstrip("\n")
        if text == "" and not blank and "banner" not in seen:
            blank = raw
            continue
        if _BANNER.match(text) or (text == "" and "banner" in seen):
            blank = b""
            seen["banner"] = "1"
            found = re.search(r"PID (\d+) RUNNING", text)
            if found:
                seen["pid"] = found.group(1)
            found = re.search(r"EXIT CODE: (\d+)", text)
            if found:
                seen.setdefault("why", f"exit code {found.group(1)}")
            found = re.search(r"EXIT STRING: (.*)", text)
            if found:
                seen["why"] = found.group(1).strip()
            continue
        if _HYDRA_INTERRUPT.match(text):
            continue
        if _REPORTED.match(text):
            seen["reported"] = "1"
        raw, blank = blank + raw, b""
        if out is not None:
            out.write(raw)
            out.flush()
        else:
            dst.write(raw.decode(errors="replace"))
            dst.flush()
