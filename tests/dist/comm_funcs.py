"""A MindSpore-style script of the communication functions (``ops.all_gather``,
``broadcast``, ``send``/``recv``, ``barrier``, ``new_group``, ...) that the tests start with
``mpiexec -n 2``; each rank writes what it got to ``OUT.rank<R>.npz``.

    python comm_funcs.py OUT
"""

from __future__ import annotations

import sys

import numpy as np

from framework import Tensor, ops
from framework.communication import get_group_size, init


def main(out: str) -> None:
    init()
    rank, size = ops.get_rank(), get_group_size()
    mine = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * rank)
    gathered = [Tensor(np.zeros((2, 3), np.float32)) for _ in range(size)]
    handle = ops.all_gather(gathered, mine, async_op=True)
    handle.wait()
    shared = Tensor(np.full(3, rank + 1, np.int32))
    ops.broadcast(shared, size - 1)
    got = Tensor(np.zeros(4, np.float64))
    if rank == 0:
        ops.send(Tensor(np.array([1.5, 2.5, 3.5, 4.5])), dst=1, tag=3)
        status = ops.recv(got, src=1, tag=4)
    else:
        status = ops.recv(got, src=0, tag=3)
        ops.send(got * 2, dst=0, tag=4)
    last = ops.new_group([size - 1])
    everyone = ops.new_group(list(range(size)))
    in_last = ops.get_rank(last) if rank == size - 1 else -1
    ops.barrier(everyone)
    np.savez(f"{out}.rank{rank}.npz", gathered=np.stack([g.asnumpy() for g in gathered]),
             shared=shared.asnumpy(), got=got.asnumpy(), status=status,
             ranks_last=np.array(ops.get_process_group_ranks(last)),
             ranks_all=np.array(ops.get_process_group_ranks(everyone)), in_last=in_last,
             backend=ops.get_backend(), group=last)


if __name__ == "__main__":
    main(sys.argv[1])
