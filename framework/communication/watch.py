"""Collectives with a deadline: a rank that never arrives ends the job instead of hanging it.

Contract: every collective of :mod:`framework.communication` is started nonblocking
(``Iallreduce``, ``Ibcast``, ``Iallgather``) and completed by :func:`wait`, which tests
the request (MPI progresses it there: spinning for the first 2 ms, then sleeping up to
1 ms between tests, so ranks waiting for a slower one leave it the cores). Each wait is
collective number ``n`` of this rank (every rank runs the same collectives in the same
order, so the numbers match across ranks).

After :func:`timeout` seconds (:func:`set_timeout`, else ``TWINMODE_COLLECTIVE_TIMEOUT``,
default 300) the rank asks every other rank, by point-to-point messages on a private
communicator, which collective it waits in; a rank waiting too answers within 0.1 s. A
rank that does not answer within :data:`ANSWER_SECONDS` did not arrive (stopped, hung,
or busy elsewhere). The lowest rank that did arrive prints one line,
``collective timeout: rank R of N did not reach <what> #n within T s (<knob>); ...``,
and ends the job with ``MPI_Abort`` (exit code 1); files written before (checkpoints)
are untouched. The others keep waiting for that abort.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

TIMEOUT_ENV = "TWINMODE_COLLECTIVE_TIMEOUT"
DEFAULT_TIMEOUT = 300.0
ANSWER_SECONDS = 2.0  # how long a timed-out rank waits for the others' answers
_QUERY, _ANSWER = 7101, 7102  # message tags on the watch communicator
_SPIN_SECONDS = 0.002
_MAX_NAP = 0.001

_state: dict[str, Any] = {"timeout": None, "knob": TIMEOUT_ENV, "watch": None, "seq": 0, "sends": []}


def set_timeout(seconds: float | None, knob: str | None = None) -> None:
    """Seconds a collective may wait for the other ranks (None: the environment's, else
    300); ``knob`` names the setting in the timeout message (e.g. ``dist.timeout``)."""
    if seconds is not None and not seconds > 0:
        raise ValueError(f"collective timeout must be > 0 seconds, got {seconds!r}")
    _state["timeout"] = None if seconds is None else float(seconds)
    _state["knob"] = knob or TIMEOUT_ENV


def timeout() -> float:
    """The collective timeout in seconds (a one-line ValueError for a bad environment value)."""
    if _state["timeout"] is not None:
        return _state["timeout"]
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise ValueError(f"{TIMEOUT_ENV}={text!r}: must be a number of seconds > 0")
    return value


def attach(world: Any) -> None:
    """Start watching the collectives of ``world``'s ranks (from ``init()``; collective)."""
    _state["watch"] = world.Dup()  # the queries never mix with the job's messages
    _state["seq"] = 0


def detach() -> None:
    if _state["watch"] is not None:
        _state["watch"].Free()
        _state["watch"] = None


def wait(request: Any, what: str) -> None:
    """Complete ``request`` (a started collective called ``what``), or end the job after the
    timeout naming the ranks that did not arrive."""
    _state["seq"] += 1
    if request.Test():
        return
    seq = _state["seq"]
    start = time.monotonic()
    spin_until = start + _SPIN_SECONDS
    while time.monotonic() < spin_until:
        if request.Test():
            return
    limit = timeout()
    nap, next_poll = 50e-6, start + 1.0
    while not request.Test():
        now = time.monotonic()
        time.sleep(nap)
        nap = min(nap * 2, _MAX_NAP)
        if now >= next_poll:  # waiting long: answer the others' questions
            next_poll = now + 0.1
            _answer(seq, what)
        if now - start >= limit and _timed_out(request, seq, what, limit):
            return


def _answer(seq: int, what: str) -> None:
    watch = _state["watch"]
    if watch is None:
        return
    MPI = _mpi()
    status = MPI.Status()
    while watch.Iprobe(source=MPI.ANY_SOURCE, tag=_QUERY, status=status):
        source = status.Get_source()
        watch.recv(source=source, tag=_QUERY)
        _state["sends"].append(watch.isend((seq, what), dest=source, tag=_ANSWER))


def _timed_out(request: Any, seq: int, what: str, limit: float) -> bool:
    """Ask the others where they are; the lowest rank that arrived aborts the job. True when
    the collective completed meanwhile."""
    watch = _state["watch"]
    me, size = watch.Get_rank(), watch.Get_size()
    for other in range(size):
        if other != me:
            _state["sends"].append(watch.isend(seq, dest=other, tag=_QUERY))
    where: dict[int, tuple[int, str]] = {me: (seq, what)}
    end = time.monotonic() + ANSWER_SECONDS
    while time.monotonic() < end:
        if request.Test():
            return True
        _answer(seq, what)
        status = _mpi().Status()
        while watch.Iprobe(source=_mpi().ANY_SOURCE, tag=_ANSWER, status=status):
            source = status.Get_source()
            where[source] = tuple(watch.recv(source=source, tag=_ANSWER))
        time.sleep(0.01)
    arrived = sorted(r for r, (n, _) in where.items() if n == seq)
    if arrived[0] != me:  # a lower rank that arrived reports (its own deadline comes)
        _wait_for_abort(request, seq, what)
        return True
    missing = [r for r in range(size) if r not in where]
    elsewhere = [f"rank {r} waits in {w} #{n}" for r, (n, w) in sorted(where.items()) if n != seq]
    who = (f"rank{'s' if len(missing) > 1 else ''} {_join(missing)} of {size} did not reach {what} #{seq}"
           if missing else f"{what} #{seq} of {size} ranks did not complete")
    line = (f"collective timeout: {who} within {limit:g} s ({_state['knob']}); "
            f"{'; '.join(elsewhere) + '; ' if elsewhere else ''}"
            f"rank{'s' if len(arrived) > 1 else ''} {_join(arrived)} waited; stopping the job")
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    sys.stdout.flush()
    watch.Abort(1)
    return True  # not reached


def _wait_for_abort(request: Any, seq: int, what: str) -> None:
    """Keep answering until the reporting rank's abort ends this process (or the collective
    completes); after another timeout without either, leave the error to this rank."""
    give_up = time.monotonic() + timeout() + 2 * ANSWER_SECONDS
    while not request.Test():
        _answer(seq, what)
        if time.monotonic() > give_up:
            sys.stderr.write(f"collective timeout: {what} #{seq} did not complete and no rank "
                             "reported why; stopping the job\n")
            sys.stderr.flush()
            _state["watch"].Abort(1)
        time.sleep(0.01)


def _join(ranks: list[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def _mpi() -> Any:
    from .management import mpi_module

    return mpi_module()
