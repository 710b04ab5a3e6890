"""MindSpore's communication functions (``ops.all_gather``, ``broadcast``, ``barrier``,
``send``, ``recv``, ``get_rank``, ``new_group``, ``get_process_group_ranks``,
``get_backend``): on one process (a world of one rank) and on two MPI ranks
(``tests/dist/comm_funcs.py`` under ``mpiexec -n 2``), against what each rank must receive."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, ops
from trainer.dist_launch import find_mpiexec

SCRIPT = Path(__file__).with_name("comm_funcs.py")
ROOT = Path(__file__).resolve().parents[2]
MPIEXEC = find_mpiexec()
try:
    import mpi4py  # noqa: F401
except ImportError:
    MPIEXEC = None


def test_one_process_is_a_world_of_one():
    x = Tensor(np.arange(4, dtype=np.float32))
    out = [Tensor(np.zeros(4, np.float32))]
    assert ops.all_gather(out, x) is None
    np.testing.assert_array_equal(out[0].asnumpy(), x.asnumpy())
    y = Tensor(np.ones(2, np.int32))
    assert ops.broadcast(y, 0) is None
    np.testing.assert_array_equal(y.asnumpy(), [1, 1])
    assert ops.barrier() is None and ops.barrier(async_op=True).wait() is None
    assert (ops.get_rank(), ops.get_backend(), ops.get_process_group_ranks()) == (0, "mpi", [0])
    group = ops.new_group([0])
    assert ops.get_process_group_ranks(group) == [0] and ops.get_rank(group) == 0


@pytest.mark.parametrize("call, kind, message", [
    (lambda x: ops.send(x, 0), ValueError, "this process's own rank"),
    (lambda x: ops.recv(x, 1), ValueError, "src 1 is not a rank of the group"),
    (lambda x: ops.broadcast(x, 1), ValueError, "src 1 is not a rank"),
    (lambda x: ops.new_group([0, 1]), ValueError, "distinct ranks of the world"),
    (lambda x: ops.all_gather([], x), TypeError, "the group has 1 ranks"),
    (lambda x: ops.all_gather([Tensor(np.zeros(3, np.float64))], x), TypeError, "shape"),
    (lambda x: ops.get_rank("nope"), ValueError, "make it with new_group"),
    (lambda x: ops.send(x.asnumpy(), 1), TypeError, "must be a Tensor"),
    (lambda x: ops.broadcast(x, 0, async_op=1), TypeError, "async_op must be a bool"),
])
def test_bad_arguments_say_what(call, kind, message):
    with pytest.raises(kind, match=message):
        call(Tensor(np.arange(4, dtype=np.float32)))


@pytest.mark.slow
@pytest.mark.skipif(MPIEXEC is None, reason="the dist extra (mpi4py + mpich) is not installed")
def test_two_ranks_exchange_what_each_sent(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", "TVM_NUM_THREADS": "1"}
    done = subprocess.run([MPIEXEC, "-n", "2", sys.executable, str(SCRIPT), str(tmp_path / "out")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    sent = np.array([1.5, 2.5, 3.5, 4.5])
    for rank in (0, 1):
        got = np.load(tmp_path / f"out.rank{rank}.npz")
        np.testing.assert_array_equal(got["gathered"], np.stack([base, base + 10]))
        np.testing.assert_array_equal(got["shared"], [2, 2, 2])  # rank 1's
        np.testing.assert_array_equal(got["got"], sent * 2 if rank == 0 else sent)
        assert int(got["status"]) == 0
        assert got["ranks_last"].tolist() == [1] and got["ranks_all"].tolist() == [0, 1]
        assert int(got["in_last"]) == (0 if rank == 1 else -1)
        assert str(got["backend"]) == "mpi" and str(got["group"]) == "group_1"
