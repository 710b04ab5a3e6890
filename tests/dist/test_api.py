"""The data-parallel API in one process: context, communication, buckets, sharding.

One process is a world of one rank (MPI's singleton start): the all-reduce is then the
identity, so the reducer must give the gradients times ``1 / degree``; the MPI
equivalence itself is in test_ranks.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import datasets
import framework as ms
from framework import Tensor, nn, ops
from framework.nn.distributed import plan_buckets

mpi4py = pytest.importorskip("mpi4py")


@pytest.fixture(autouse=True)
def _stand_alone():
    ms.reset_auto_parallel_context()
    yield
    ms.reset_auto_parallel_context()


def test_parallel_context_set_get_reset():
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    assert ms.context.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("gradients_mean") is True
    assert ms.get_auto_parallel_context("device_num") == 1  # the world size when not set
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("gradients_mean") is False


@pytest.mark.parametrize("kwargs, message", [
    ({"parallel_mode": "semi_auto_parallel"}, "is not supported; use ParallelMode.DATA_PARALLEL"),
    ({"parallel_mode": "bogus"}, "parallel_mode must be one of"),
    ({"gradients_mean": 1}, "gradients_mean must be True or False"),
    ({"comm_fusion_bytes": 1000}, ">= 1048576 (1 MB)"),
    ({"gradient_mean": True}, "unknown key(s) gradient_mean"),
])
def test_parallel_context_rejects_bad_values(kwargs, message):
    with pytest.raises(ValueError) as error:
        ms.set_auto_parallel_context(**kwargs)
    assert message in str(error.value)


def test_communication_in_one_process():
    from framework.communication import get_group_size, get_rank, init, release

    init()
    assert (get_rank(), get_group_size()) == (0, 1)
    release()
    with pytest.raises(ValueError, match="unknown backend_name 'tcp'"):
        init("tcp")


def test_buckets_are_at_least_the_fusion_size_in_reverse_order_and_one_dtype():
    shapes = [(300_000,), (10,), (200_000,), (100_000,), (5,)]
    dtypes = [np.float32] * 4 + [np.float64]
    buckets = plan_buckets(shapes, dtypes, 1 << 20)
    order = [[i for i, _, _ in b] for b in buckets]
    assert order == [[4], [3, 2], [1, 0]]  # float64 alone; then >= 1 MB each, the rest last
    assert sum(s for _, s, _ in buckets[1]) * 4 >= 1 << 20


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_grad_reducer_sums_over_the_world_and_averages_by_degree(mode):
    """World of one: the sum is the gradient itself, the mean divides by ``degree``. Three
    gradients in two buckets (``plan``'s bytes below the context's 1 MB minimum, to split)."""
    ms.set_context(mode=mode)
    params = [ms.Parameter(Tensor(np.zeros(s, np.float32)), name=f"p{i}")
              for i, s in enumerate([(3, 4), (5,), (2, 2, 2)])]
    reducer = nn.DistributedGradReducer(params, mean=True, degree=4)
    reducer.plan(40)
    assert len(reducer.buckets) == 2
    rng = np.random.default_rng(0)
    grads = tuple(Tensor(rng.normal(size=p.shape).astype(np.float32)) for p in params)
    run = ms.jit(lambda *g: reducer(g)) if mode == ms.GRAPH_MODE else (lambda *g: reducer(g))
    out = run(*grads)
    for got, g in zip(out, grads):
        np.testing.assert_allclose(got.asnumpy(), g.asnumpy() / 4, rtol=1e-6)


def test_allreduce_is_a_packed_call_inside_the_compiled_function(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    f = ms.jit(lambda x: ops.mul(ops.AllReduce()(ops.add(x, 1.0)), 2.0))
    np.testing.assert_allclose(f(Tensor(np.ones(4, np.float32))).asnumpy(), np.full(4, 4.0))
    script = "\n".join(p.read_text() for p in tmp_path.rglob("10_relax.py"))
    assert script.count('R.call_dps_packed("twinmode.allreduce_sum"') == 1
    assert script.count("@R.function") == 1  # one compiled function: the call is inside it


def test_train_one_step_cell_reduces_only_under_data_parallel():
    net = nn.Dense(3, 2)
    opt = nn.SGD(net.trainable_params(), 0.1)
    assert not nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt).reducer_flag
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    cell = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    assert cell.reducer_flag and isinstance(cell.grad_reducer, nn.DistributedGradReducer)


def _loader(n, batch, shards=1, shard=0, **kw):
    x = np.arange(n, dtype=np.float32).reshape(n, 1, 1, 1)
    return datasets.make_loader((x, np.arange(n) % 10), batch_size=batch, seed=5, num_shards=shards,
                                shard_id=shard, drop_remainder=False, **kw)


def test_shards_cover_each_sample_once_per_epoch():
    seen = [int(v) for r in range(4) for x, _ in _loader(96, 8, 4, r) for v in x.ravel()]
    assert sorted(seen) == list(range(96))


def test_uneven_shards_are_padded_by_wrapping_around():
    loaders = [_loader(10, 4, 3, r) for r in range(3)]
    assert [lo.shard_samples for lo in loaders] == [4, 4, 4]
    seen = [int(v) for lo in loaders for x, _ in lo for v in x.ravel()]
    assert sorted(set(seen)) == list(range(10)) and len(seen) == 12


def test_rank_batches_together_are_the_one_process_batch():
    one = [sorted(x.ravel()) for x, _ in _loader(128, 64)]
    for b, batch in enumerate(one):
        parts = [next(iter(_skip(_loader(128, 32, 2, r), b)))[0].ravel() for r in range(2)]
        assert sorted(np.concatenate(parts)) == batch


def _skip(loader, batches):
    loader.set_epoch(0, batches)
    return loader


def test_resume_state_keeps_num_shards_but_not_shard_id():
    state = _loader(96, 8, 2, 0).state_dict()
    other = _loader(96, 8, 2, 1)
    other.load_state_dict(state)  # rank 1 resumes from rank 0's checkpoint
    with pytest.raises(ValueError, match="num_shards 2 != 4"):
        _loader(96, 8, 4, 1).load_state_dict(state)
