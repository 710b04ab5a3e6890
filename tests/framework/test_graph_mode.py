"""Graph mode end to end: the same model code traced, compiled with TVM, run, compared
with PyNative."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops
from framework.graph_mode import cache_stats
from framework.ir import GraphModeError
from trainer.models import LeNet5

from .test_tutorials import GradNetWrtX
from .test_tutorials import Net as MatMulNet


def run_in(mode: int, fn):
    ms.set_context(mode=mode)
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def both_modes(fn):
    return run_in(ms.PYNATIVE_MODE, fn), run_in(ms.GRAPH_MODE, fn)


# -- MindSpore tutorial snippets (the same cells the PyNative tutorial tests use) ---------
X = [[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]]
Y = [[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]]


def test_grad_operation_tutorial_in_graph_mode():
    def snippet():
        x, y = Tensor(X, dtype=ms.float32), Tensor(Y, dtype=ms.float32)
        return GradNetWrtX(MatMulNet())(x, y).asnumpy()

    eager, graph = both_modes(snippet)
    expected = np.array([[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], np.float32)
    np.testing.assert_allclose(graph, expected, rtol=1e-6)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)


def test_dense_network_and_add_in_graph_mode():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 4)
            self.add = ops.Add()

        def construct(self, x):
            return self.add(self.fc(x), ops.mul(x[:, :1], 2.0))

    ms.set_seed(1)
    net = Net()
    x = Tensor(np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))
    eager, graph = both_modes(lambda: net(x).asnumpy())
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)


def test_python_for_loop_over_parameter_unrolls():
    class Loop(nn.Cell):
        def __init__(self):
            super().__init__()
            self.z = Parameter(Tensor(np.array([2.0], np.float32)), name="z")

        def construct(self, x):
            for _ in range(3):
                x = x * self.z + 1.0
            return x

    net = Loop()
    x = Tensor(np.array([1.0, -1.0], np.float32))

    def value_and_grad():
        out, (gz,) = ms.value_and_grad(net, None, net.trainable_params())(x)
        return out.asnumpy(), gz.asnumpy()

    (ev, eg), (gv, gg) = both_modes(value_and_grad)
    np.testing.assert_allclose(gv, [15.0, -1.0])  # ((2x+1)*2+1)*2+1
    np.testing.assert_allclose(gv, ev)
    # d/dz of (((x z + 1) z + 1) z + 1) at z=2 is 3 x z^2 + 2 z + 1 = 12x + 5, summed
    np.testing.assert_allclose(gg, [(12 * 1 + 5) + (12 * -1 + 5)])
    np.testing.assert_allclose(gg, eg)


# -- jit ---------------------------------------------------------------------------------------
def test_jit_function_compiles_once_per_signature_even_in_pynative():
    @ms.jit
    def f(a, b):
        return ops.relu(a) * b + 1.0

    before = dict(cache_stats)
    a = Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_allclose(f(a, a).asnumpy(), [1.0, 5.0])
    np.testing.assert_allclose(f(a * 2, a).asnumpy(), [1.0, 9.0])
    assert cache_stats["traces"] - before["traces"] == 1
    assert cache_stats["memory_hits"] - before["memory_hits"] == 1
    f(Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones((2, 2), np.float32)))
    assert cache_stats["traces"] - before["traces"] == 2  # new shape: traced again


def test_jit_on_construct_and_as_transform():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([3.0], np.float32)), name="w")

        @ms.jit
        def construct(self, x):
            return x * self.w

    net = Net()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    traces = cache_stats["traces"]
    np.testing.assert_allclose(net(x).asnumpy(), [3.0, 6.0])
    assert cache_stats["traces"] == traces + 1
    net.w.set_data(np.array([4.0], np.float32))  # host update: re-uploaded, no retrace
    np.testing.assert_allclose(net(x).asnumpy(), [4.0, 8.0])
    assert cache_stats["traces"] == traces + 1
    double = ms.jit(lambda t: t + t)
    np.testing.assert_allclose(double(x).asnumpy(), [2.0, 4.0])


# -- errors ------------------------------------------------------------------------------------
class Branchy(nn.Cell):
    def construct(self, x):
        if ops.reduce_sum(x) > 0:
            return x
        return -x


class NeedsValue(nn.Cell):
    def construct(self, x):
        return x * float(ops.reduce_sum(x))


def test_if_on_tensor_value_compiles_like_pynative():
    for sign in (1.0, -1.0):
        x = Tensor(sign * np.arange(1, 4, dtype=np.float32))
        eager, graph = both_modes(lambda x=x: Branchy()(x).asnumpy())
        np.testing.assert_array_equal(graph, eager)
        np.testing.assert_array_equal(graph, np.abs(x.asnumpy()))


def test_host_value_of_a_traced_tensor_names_line_and_alternative():
    """With jit_syntax_level=STRICT (no JIT Fallback: tests/framework/test_jit_fallback.py)."""
    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        with pytest.raises(GraphModeError) as info:
            run_in(ms.GRAPH_MODE, lambda: NeedsValue()(Tensor(np.ones(3, np.float32))))
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
    message = str(info.value)
    line = inspect.getsourcelines(NeedsValue.construct)[1] + 1
    assert f"{__file__}:{line}" in message
    assert "ops.select" in message and "PyNative" in message


class BadBias(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((4, 8), np.float32)), name="w")
        self.b = Parameter(Tensor(np.ones((4,), np.float32)), name="b")

    def construct(self, x):
        out = ops.matmul(x, self.w)
        return ops.bias_add(out, self.b)


def test_shape_error_names_op_shapes_line_and_writes_analyze_fail(tmp_path):
    ms.set_context(save_graphs_path=str(tmp_path))
    with pytest.raises(ValueError) as info:
        run_in(ms.GRAPH_MODE, lambda: BadBias()(Tensor(np.ones((3, 4), np.float32))))
    message = str(info.value)
    line = inspect.getsourcelines(BadBias.construct)[1] + 2
    report = tmp_path / "analyze_fail.ir"
    assert "BiasAdd" in message and "(3, 8)" in message and "(4,)" in message
    assert f"{__file__}:{line}" in message and str(report) in message
    text = report.read_text()
    assert "MatMul" in text and ">>> FAILED: BiasAdd" in text
    assert f"test_graph_mode.py:{line}" in text


def test_analyze_fail_defaults_to_a_subfolder_not_the_working_directory(tmp_path, monkeypatch):
    from framework.context import DEFAULT_SAVE_GRAPHS_PATH

    monkeypatch.chdir(tmp_path)
    ms.set_context(save_graphs_path=DEFAULT_SAVE_GRAPHS_PATH)
    with pytest.raises(ValueError):
        run_in(ms.GRAPH_MODE, lambda: BadBias()(Tensor(np.ones((3, 4), np.float32))))
    assert os.path.normpath(DEFAULT_SAVE_GRAPHS_PATH) not in ("", ".")
    assert (tmp_path / DEFAULT_SAVE_GRAPHS_PATH / "analyze_fail.ir").is_file()
    assert not (tmp_path / "analyze_fail.ir").exists()


# -- LeNet: one compiled train step, parity with PyNative ----------------------------------
def make_lenet_step():
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def lenet_run(mode: int, steps: int, batch: int = 16):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((4, batch, 1, 32, 32)).astype(np.float32)
    ys = rng.integers(0, 10, (4, batch)).astype(np.int32)

    def train():
        net, step = make_lenet_step()
        losses = [float(step(Tensor(xs[i % 4]), Tensor(ys[i % 4])).asnumpy()) for i in range(steps)]
        return net, step, losses

    return run_in(mode, train)


def test_lenet_train_step_matches_pynative_for_50_steps():
    e_net, _, e_losses = lenet_run(ms.PYNATIVE_MODE, 50)
    g_net, g_step, g_losses = lenet_run(ms.GRAPH_MODE, 50)
    np.testing.assert_allclose(g_losses, e_losses, rtol=1e-4)
    assert np.ptp(e_losses) > 0.01  # the parameters really moved
    for (name, pe), (_, pg) in zip(e_net.parameters_and_names(), g_net.parameters_and_names()):
        np.testing.assert_allclose(pg.asnumpy(), pe.asnumpy(), rtol=1e-3, atol=1e-5, err_msg=name)
    report = g_step._graph_runner.last_report
    # updated state: 8 weights + 8 moments + the step counter (the learning rate is read-only)
    assert report.updates == 17 and report.params == 18
    x = Tensor(np.random.default_rng(5).standard_normal((16, 1, 32, 32)).astype(np.float32))
    pe = run_in(ms.PYNATIVE_MODE, lambda: e_net(x).asnumpy().argmax(1))
    pg = run_in(ms.GRAPH_MODE, lambda: g_net(x).asnumpy().argmax(1))
    np.testing.assert_array_equal(pg, pe)


def test_parameters_stay_on_the_device_until_read():
    _, step, _ = lenet_run(ms.GRAPH_MODE, 2)
    weight = step.network.backbone_network.fc1.weight
    assert weight._host_stale  # the newest value lives on the device
    host = weight.asnumpy()
    assert not weight._host_stale and host.shape == (120, 400)


# -- IR artifacts, caches, targets -----------------------------------------------------------
def test_ir_artifacts_are_written_in_order(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    lenet_run(ms.GRAPH_MODE, 1, batch=4)
    out = tmp_path / "TrainOneStepCell"
    for name in ("00_trace.ir", "01_grad.ir", "02_opt.ir", "graph.dot", "10_relax.py",
                 "11_relax_opt.py", "20_kernels.ll", "summary.json"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    trace = (out / "00_trace.ir").read_text()
    assert "Conv2D" in trace and "lenet.py:" in trace and "[backward]" not in trace
    grad = (out / "01_grad.ir").read_text()
    assert "Conv2DBackpropFilter" in grad and "[backward]" in grad
    assert "define" in (out / "20_kernels.ll").read_text()  # LLVM IR functions
    import tvm

    relax_mod = tvm.script.from_source((out / "10_relax.py").read_text())
    assert "main" in [gv.name_hint for gv in relax_mod.get_global_vars()]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["nodes_traced"] >= summary["nodes_optimized"] > 50
    assert summary["target"] == "llvm" and summary["compile_seconds"] > 0
    # one numbering for the files of one function: a value's line reads the same in each
    conv = {name: next(line for line in (out / name).read_text().splitlines() if "= Conv2D{" in line)
            for name in ("00_trace.ir", "01_grad.ir", "02_opt.ir")}
    assert len(set(conv.values())) == 1, conv
    # the outputs that update a parameter say which, one per trainable parameter
    returned = (out / "02_opt.ir").read_text().split("return (\n", 1)[1]
    names = [line.split("# new ", 1)[1] for line in returned.splitlines() if "# new " in line]
    assert "fc1.weight" in names and "conv1.weight" in names and "moments.fc1.weight" in names
    assert 'label="new fc1.weight"' in (out / "graph.dot").read_text()


CACHE_SCRIPT = """
import numpy as np, framework as ms
from framework import Tensor, ops
from framework.graph_mode import cache_stats
f = ms.jit(lambda a: ops.exp(a) * 2.0 + ops.reduce_sum(a))
print(float(f(Tensor(np.arange(3, dtype=np.float32))).asnumpy()[0]))
print(cache_stats["compiles"], cache_stats["disk_hits"])
"""


def test_a_second_process_compiles_nothing(tmp_path):
    env = dict(os.environ, TWINMODE_CACHE_DIR=str(tmp_path / "cache"))
    root = str(Path(__file__).resolve().parents[2])
    runs = [subprocess.run([sys.executable, "-c", CACHE_SCRIPT], env=env, cwd=root,
                           capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    assert runs[0][0] == runs[1][0] == str(float(np.exp(0) * 2 + 3))
    assert runs[0][1:] == ["1", "0"]  # first process: one compile
    assert runs[1][1:] == ["0", "1"]  # second: loaded from the disk cache


def test_cuda_target_generates_code_and_says_no_gpu(tmp_path):
    import shutil

    import tvm

    ms.set_context(device_target="GPU", save_graphs=True, save_graphs_path=str(tmp_path))
    f = ms.jit(lambda a, b: ops.relu(ops.matmul(a, b)) + 1.0)
    a, b = Tensor(np.ones((8, 4), np.float32)), Tensor(np.ones((4, 8), np.float32))
    if tvm.cuda(0).exist:  # a GPU machine: it runs, and agrees with PyNative
        np.testing.assert_allclose(f(a, b).asnumpy(), np.full((8, 8), 5.0))
    else:
        with pytest.raises(RuntimeError, match="no CUDA GPU"):
            f(a, b)
    out = next(tmp_path.iterdir())
    assert "__global__" in (out / "20_kernels.cu").read_text()
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: PTX not generated (CUDA C checked)")
    assert ".entry" in (out / "20_kernels.ptx").read_text()


# -- stateful and random layers --------------------------------------------------------------
def test_dropout_and_batchnorm_training_match_pynative():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3, pad_mode="same")
            self.bn = nn.BatchNorm2d(4)
            self.drop = nn.Dropout(p=0.3)
            self.fc = nn.Dense(4 * 6 * 6, 3)

        def construct(self, x):
            return self.fc(ops.flatten(self.drop(ops.relu(self.bn(self.conv(x))))))

    x = np.random.default_rng(0).standard_normal((5, 1, 6, 6)).astype(np.float32)
    y = np.array([0, 1, 2, 1, 0], np.int32)

    def train():
        ms.set_seed(3)
        net = Net()
        net.set_train()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(4)]
        return losses, net.bn.moving_mean.asnumpy().copy(), net.bn.moving_variance.asnumpy().copy()

    (el, em, ev), (gl, gm, gv) = both_modes(train)
    np.testing.assert_allclose(gl, el, rtol=1e-5)
    np.testing.assert_allclose(gm, em, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gv, ev, rtol=1e-5)
    assert not np.allclose(em, 0.0)  # the moving statistics were updated


# -- the registry's gradients, compiled ------------------------------------------------------
def test_every_bprop_compiles_to_the_pynative_gradient():
    """All differentiable harness cases in ONE compiled function: graph-mode gradients
    (same bprop rules, traced) equal the PyNative ones, which the harness checks against
    finite differences."""
    from framework.autograd.grad import vjp
    from framework.interpreters import apply

    from .test_primitives import GRAD_CASES, _differentiable_positions, _inputs

    cases = []
    for case in GRAD_CASES:
        if case.seeded:
            continue  # random masks: covered by the Dropout training test above
        arrays = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in _inputs(case, 1)]
        positions = _differentiable_positions(case, arrays)
        if positions:
            cases.append((case, arrays, positions))

    def all_grads(*flat):
        grads, i = [], 0
        for case, arrays, positions in cases:
            args = flat[i:i + len(arrays)]
            i += len(arrays)
            _, g, _ = vjp(lambda *t, p=case.prim: apply(p, t), args, positions, ())
            grads.extend(g)
        return tuple(grads)

    flat = [Tensor(a) for _, arrays, _ in cases for a in arrays]
    eager = all_grads(*flat)
    graph = ms.jit(all_grads)(*flat)
    assert len(graph) == len(eager) > 60
    for k, (g, e) in enumerate(zip(graph, eager)):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=2e-4, atol=2e-5, err_msg=str(k))


# -- what a compiled function may and may not reuse ------------------------------------------
def test_train_eval_switch_retraces_jitted_functions_and_grads():
    net = nn.SequentialCell(nn.Dense(4, 4), nn.Dropout(p=0.5))
    x = Tensor(np.ones((2, 4), np.float32))
    fwd = ms.jit(lambda t: net(t))
    net.set_train(False)
    ev = fwd(x).asnumpy()
    np.testing.assert_allclose(ev, run_in(ms.PYNATIVE_MODE, lambda: net(x).asnumpy()), rtol=1e-6)
    net.set_train(True)
    tr = fwd(x).asnumpy()
    assert (tr == 0).any() and not np.allclose(tr, ev)  # dropout now active
    net.set_train(False)
    np.testing.assert_allclose(fwd(x).asnumpy(), ev, rtol=1e-6)  # and off again

    loss = lambda t: ops.reduce_sum(net(t))  # noqa: E731
    grad_fn = ms.value_and_grad(loss, None, net.trainable_params())
    net.set_train(False)
    graph_eval = run_in(ms.GRAPH_MODE, lambda: grad_fn(x)[0].asnumpy())
    np.testing.assert_allclose(graph_eval, run_in(ms.PYNATIVE_MODE, lambda: grad_fn(x)[0].asnumpy()),
                               rtol=1e-5)
    net.set_train(True)
    ms.set_seed(7)
    graph_train = run_in(ms.GRAPH_MODE, lambda: grad_fn(x)[0].asnumpy())
    ms.set_seed(7)
    np.testing.assert_allclose(graph_train, run_in(ms.PYNATIVE_MODE, lambda: grad_fn(x)[0].asnumpy()),
                               rtol=1e-5)


def test_replacing_a_parameter_is_seen_by_the_compiled_cell():
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((1, 3), np.float32))
    before = run_in(ms.GRAPH_MODE, lambda: net(x).asnumpy())
    net.weight = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="weight")
    after = run_in(ms.GRAPH_MODE, lambda: net(x).asnumpy())
    np.testing.assert_allclose(after, net.bias.asnumpy()[None])
    assert not np.allclose(before, after)


def test_top_level_optimizer_call_in_graph_mode():
    """MindSpore's quickstart train_step: grads from value_and_grad, then optimizer(grads)."""
    def train(mode):
        ms.set_seed(0)
        net = nn.Dense(3, 2)
        opt = nn.SGD(net.trainable_params(), 0.1)
        loss_fn = nn.MSELoss()
        x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 2), np.float32))
        grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)

        def step():
            loss, grads = grad_fn(x, y)
            assert opt(grads) is True
            return float(loss.asnumpy())

        return run_in(mode, lambda: [step() for _ in range(3)])

    np.testing.assert_allclose(train(ms.GRAPH_MODE), train(ms.PYNATIVE_MODE), rtol=1e-5)


def test_python_scalars_of_different_types_are_different_signatures():
    h = ms.jit(lambda t, s: t + s)
    x = Tensor(np.array([1, 2], np.int32))
    assert h(x, 1).dtype == ms.int32
    assert h(x, 1.0).dtype == ms.float32
    traces = cache_stats["traces"]
    d = {"scale": Tensor(np.ones(2, np.float32))}
    g = ms.jit(lambda t, kw: t * kw["scale"])
    for _ in range(3):
        g(Tensor(np.ones(2, np.float32)), d)
    assert cache_stats["traces"] == traces + 1  # a dict of tensors keys on shapes, not values


def test_turning_save_graphs_on_later_writes_artifacts(tmp_path):
    f = ms.jit(lambda t: ops.exp(t))
    x = Tensor(np.ones(3, np.float32))
    f(x)
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    f(x)
    assert (next(tmp_path.iterdir()) / "00_trace.ir").is_file()


def test_layer_errors_while_tracing_also_write_analyze_fail(tmp_path):
    ms.set_context(save_graphs_path=str(tmp_path))
    net = nn.Dense(5, 2)
    with pytest.raises(ValueError, match=r"Dense\(5, 2\): expected input") as info:
        run_in(ms.GRAPH_MODE, lambda: net(Tensor(np.ones((2, 4), np.float32))))
    assert any(str(tmp_path / "analyze_fail.ir") in note for note in info.value.__notes__)
    assert "Dense(5, 2)" in (tmp_path / "analyze_fail.ir").read_text()


# The IR of LeNet-5's train step (MindSpore tutorial settings) as it was before graph mode
# compiled source: programs without control flow on tensors must compile to the same
# graph. If a deliberate IR change moves this fingerprint, say why in the commit.
LENET_STEP_FINGERPRINT = "15815172524c5ee9e3cc63a2e3c9c13a279b2b8aae0f4a2836a03ca27e32e0f3"


def test_lenet_train_step_compiles_to_the_same_graph_as_before_source_conversion():
    from framework.graph_mode import JitFunction, fingerprint

    ms.set_seed(0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    jf = JitFunction(step.construct, name="TrainOneStepCell", cell=step)
    x = Tensor(np.zeros((32, 1, 32, 32), np.float32))
    y = Tensor(np.zeros(32, np.int32))
    compiled = jf._lookup((x, y))
    assert fingerprint(compiled.graph) == LENET_STEP_FINGERPRINT
    assert not any(node.prim.regions for node in compiled.graph.nodes)


def test_keyword_arguments_of_a_compiled_call():
    """``net(x, shift=s)`` compiles as ``net(x, None, s)``: the same value as PyNative, one
    compiled graph however the call is spelled, and an unknown keyword named."""

    class Affine(nn.Cell):
        def construct(self, x, scale=None, shift=None):
            if scale is not None:
                x = x * scale
            return x if shift is None else x + shift

    x = Tensor(np.arange(3, dtype=np.float32))
    s = Tensor(np.full(3, 0.5, np.float32))
    net = Affine()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = net(x, shift=s).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(net(x, shift=s).asnumpy(), want)
        np.testing.assert_array_equal(net(x, None, s).asnumpy(), want)
        assert len(net._graph_runner._cache) == 1
        np.testing.assert_array_equal(net(x, scale=s).asnumpy(), x.asnumpy() * 0.5)
        with pytest.raises(TypeError, match="Affine: got an unexpected keyword argument 'bias'"):
            net(x, bias=s)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_compiling_an_embedding_gradient_prints_nothing_on_stderr(tmp_path):
    # TVM's scatter kernel made its LLVM code generator print "Warning: Unknown pragma
    # pragma_scope" (native stderr, a fresh process and cache) for every graph-mode Embedding
    import subprocess
    import sys
    from pathlib import Path

    code = ("import numpy as np, framework as ms\n"
            "from framework import nn, Tensor\n"
            "ms.set_context(mode=ms.GRAPH_MODE)\n"
            "e = nn.Embedding(50, 8)\n"
            "g = ms.jit(ms.value_and_grad(lambda i: e(i).sum(), None, e.trainable_params()))\n"
            "loss, (grad,) = g(Tensor(np.array([[1, 2, 2]], np.int32)))\n"
            "print(grad.asnumpy()[2, 0])\n")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "TWINMODE_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2.0"  # index 2 twice: its row's gradient adds up
    assert done.stderr == ""
