"""MindSpore programs that ran differently here (issue 25's gaps): ``P.Conv2D``'s MindSpore
constructor (``Conv2D(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation,
group, data_format)``), metrics and callbacks fed Tensors by ``Model``, ``LossMonitor``'s
lines, ``Tensor(shape=[None, 3], dtype=...)`` placeholders with ``set_inputs`` and
``jit(input_signature=...)``, float16 ``BatchNorm1d``, ``ops.matmul`` on 1-D and batched
operands with gradients, and the ``jit_config``/``jit_level``/``jit_syntax_level`` context
keys.

``kind(fn)`` in the prelude turns an expected failure into the name of its builtin kind
(ValueError ...), so the kind of error is compared too. ``EXPECTED``
(``ms_gaps_expected.json``) holds MindSpore 2.10's answers on CPU by mode
(``{"graph": ..., "pynative": ...}``); ``python -m tests.mindspore_ref.ms_gaps_programs``
re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = '''
import contextlib
import importlib
import io

P = ms.ops.operations
train = importlib.import_module(ms.__name__ + ".train")
dataset = importlib.import_module(ms.__name__ + ".dataset")


X = (np.arange(2 * 3 * 6 * 5, dtype=np.float32).reshape(2, 3, 6, 5) % 7 - 3) / 4
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + ERROR_KIND + body


_program("conv2d_positional", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = P.Conv2D(4, 3)
        self.padded = P.Conv2D(4, (3, 2), 1, "pad", (1, 0, 2, 1), 2)
        self.same = P.Conv2D(4, 3, pad_mode="same", stride=(1, 1, 2, 1), dilation=2)
        self.grouped = P.Conv2D(6, 3, group=3, pad_mode="pad", pad=1)

    def construct(self, x, w, w32, wg):
        return self.plain(x, w), self.padded(x, w32), self.same(x, w), self.grouped(x, wg)


def main():
    w = Tensor((np.arange(4 * 3 * 9, dtype=np.float32).reshape(4, 3, 3, 3) % 5 - 2) / 10)
    w32 = Tensor((np.arange(4 * 3 * 6, dtype=np.float32).reshape(4, 3, 3, 2) % 3 - 1) / 10)
    wg = Tensor((np.arange(6 * 9, dtype=np.float32).reshape(6, 1, 3, 3) % 4 - 1) / 10)
    conv = P.Conv2D(4, (3, 3), pad_mode="pad", pad=2)
    return (Net()(Tensor(X), w, w32, wg), conv.out_channel, conv.kernel_size,
            P.Conv2D(8, 5).kernel_size)
''')

_program("conv2d_gradients", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = P.Conv2D(2, 3, 1, "pad", 1, 2)

    def construct(self, x, w):
        y = self.conv(x, w)
        return (y * y).sum()


def main():
    w = Tensor((np.arange(2 * 3 * 9, dtype=np.float32).reshape(2, 3, 3, 3) % 5 - 2) / 10)
    return ops.grad(Net(), grad_position=(0, 1))(Tensor(X), w)
''')

_program("conv2d_errors", '''
def main():
    x = Tensor(X)
    w = Tensor(np.ones((4, 3, 3, 3), np.float32))
    return (kind(lambda: P.Conv2D(4, 3, mode=2)), kind(lambda: P.Conv2D(4, 3, pad=1)),
            kind(lambda: P.Conv2D(4, 3, pad_mode="SAME")),
            kind(lambda: P.Conv2D(4, 3, data_format="NHWC")))
''')

_program("conv2d_weight_not_declared", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = P.Conv2D(5, 3)

    def construct(self, x, w):
        return self.conv(x, w)


def main():
    return Net()(Tensor(X), Tensor(np.ones((4, 3, 3, 3), np.float32)))
''')

_program("model_feeds_tensors", '''
FEATURES = (np.arange(48, dtype=np.float32).reshape(12, 4) % 7) / 7
LABELS = (np.arange(12) % 3).astype(np.int32)


class Seen(train.Metric):
    def clear(self):
        self.kinds, self.total = [], 0.0

    def update(self, logits, labels):
        self.kinds.append((type(logits).__name__, type(labels).__name__))
        self.total += float(self._convert_data(logits).sum()) + float(self._convert_data(labels).sum())

    def eval(self):
        return self.total


class Watch(train.Callback):
    def __init__(self):
        self.seen = []

    def on_train_step_end(self, run_context):
        args = run_context.original_args()
        self.seen.append(("train", type(args.net_outputs).__name__, args.net_outputs,
                          args.cur_step_num, args.get("cur_epoch_num", 0), args.batch_num))

    def on_eval_step_end(self, run_context):
        outs = run_context.original_args().net_outputs
        self.seen.append(("eval", type(outs).__name__, [type(o).__name__ for o in outs], outs[2]))


def main():
    data = lambda: dataset.NumpySlicesDataset({"x": FEATURES, "y": LABELS}, shuffle=False).batch(4)
    net = nn.Dense(4, 3, weight_init=Tensor((np.arange(12, dtype=np.float32).reshape(3, 4) % 5) / 5),
                   bias_init="zeros")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    seen = Seen()
    model = train.Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9),
                        metrics={"seen": seen, "acc": nn.Accuracy(), "loss": nn.Loss()})
    watch = Watch()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        model.train(2, data(), callbacks=[watch, train.LossMonitor(2)])
    result = model.eval(data(), callbacks=[watch])
    lines = [line.rsplit(" ", 1) for line in printed.getvalue().splitlines()]
    return ([(head, np.float64(value)) for head, value in lines], sorted(result), np.float64(result["acc"]),
            np.float64(result["loss"]), np.float64(result["seen"]), seen.kinds, watch.seen)
''')

_program("metrics_take_tensors_arrays_lists", '''
def main():
    scores = [[0.2, 0.5, 0.3], [0.9, 0.05, 0.05], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]]
    labels = [2, 1, 2, 0]
    out = []
    for convert in (Tensor, np.array, np.ndarray.tolist):
        acc, top2, prec = nn.Accuracy(), nn.TopKCategoricalAccuracy(2), nn.Precision()
        for metric in (acc, top2, prec):
            metric.clear()
            metric.update(convert(np.array(scores, np.float32)), convert(np.array(labels, np.int32)))
        out.append([np.float64(v) for v in (acc.eval(), top2.eval(), prec.eval(average=True))]
                   + [prec.eval()])
    mae, loss = nn.MAE(), nn.Loss()
    mae.clear()
    mae.update(Tensor(np.array([[1.0, 2.0]], np.float32)), np.array([[0.5, 3.0]], np.float32))
    loss.clear()
    loss.update(Tensor(np.array(2.0, np.float32)))
    loss.update(Tensor(np.array([3.0, 5.0], np.float32)))
    return out, np.float64(mae.eval()), np.float64(loss.eval()), kind(lambda: nn.Accuracy().eval())
''')

_program("loss_monitor_stops_on_nan", '''
def main():
    features = np.ones((8, 4), np.float32)
    features[5, 1] = np.nan
    net = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
    model = train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                        nn.SGD(net.trainable_params(), 0.1))
    data = dataset.NumpySlicesDataset({"x": features, "y": np.zeros(8, np.int32)},
                                      shuffle=False).batch(4)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        error = kind(lambda: model.train(1, data, callbacks=train.LossMonitor()))
    return error, printed.getvalue().splitlines()[0].rsplit(" ", 1)[0]
''')

_program("placeholder_tensors", '''
def main():
    dyn = Tensor(shape=[None, 3], dtype=ms.float32)
    rank = Tensor(shape=[-2], dtype=ms.float16)
    zeros = Tensor(shape=(2, 3), dtype=ms.int32)
    return (dyn.shape, str(dyn.dtype), dyn.ndim, dyn.size, repr(dyn), rank.shape,
            str(rank.dtype), zeros, kind(dyn.asnumpy), kind(lambda: str(dyn)),
            kind(lambda: Tensor(shape=[None, 3])))
''')

_program("set_inputs", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x.sum(axis=0) * 2 + y


def call(x, y, *signature):
    net = Net()
    net.set_inputs(*(signature or (Tensor(shape=[None, 3], dtype=ms.float32),
                                   Tensor(shape=[3], dtype=ms.float32))))
    return net(Tensor(x), Tensor(y))


def main():
    ones = np.ones((2, 3), np.float32)
    vec = np.arange(3, dtype=np.float32)
    net = Net()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32), Tensor(shape=[3], dtype=ms.float32))
    return (call(ones, vec), call(np.ones((5, 3), np.float32), vec),
            [t.shape for t in net.get_inputs()], Net().get_inputs(),
            call(np.ones((4, 3), np.float32), vec, Tensor(shape=[-2], dtype=ms.float32),
                 Tensor(shape=[3], dtype=ms.float32)),
            kind(lambda: call(np.ones((2, 3), np.float64), vec)),
            kind(lambda: call(np.ones((2, 3, 1), np.float32), vec)),
            kind(lambda: call(ones, np.ones(4, np.float32))))
''')

_program("set_inputs_wrong_count", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x * 2 + y


def main():
    net = Net()
    return kind(lambda: (net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32)),
                         net(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(3, np.float32)))))
''')

_program("jit_input_signature", '''
@ms.jit(input_signature=(Tensor(shape=[None, 2], dtype=ms.float32),))
def triple(x):
    return x * 3


@ms.jit(input_signature=(Tensor(shape=[None, 2], dtype=ms.float32), Tensor(shape=[2], dtype=ms.float32)))
def add(x, y):
    return x + y


def main():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    return (triple(Tensor(a)), triple(Tensor(a[:1])), triple(Tensor(a.reshape(2, 3))),
            add(Tensor(a), Tensor(np.array([1.0, -1.0], np.float32))))
''')

_program("batchnorm1d_float16", '''
FEATURES = ((np.arange(24, dtype=np.float32).reshape(8, 3) % 5) / 2)
LABELS = (np.arange(8) % 2).astype(np.int32)


def network(kind):
    dt = ms.float16 if kind == "dtype" else ms.float32
    net = nn.SequentialCell(nn.Dense(3, 4, weight_init="ones", bias_init="zeros", dtype=dt),
                            nn.BatchNorm1d(4, dtype=dt),
                            nn.Dense(4, 2, weight_init="ones", bias_init="zeros", dtype=dt))
    return net.to_float(ms.float16) if kind == "to_float" else net


def steps(kind):
    net = network(kind)
    with_loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(with_loss, nn.SGD(net.trainable_params(), 0.1))
    step.set_train()
    x = Tensor(FEATURES.astype(np.float16) if kind == "dtype" else FEATURES)
    losses = [step(x, Tensor(LABELS)) for _ in range(3)]
    if kind == "dtype":  # MindSpore's CPU kernel leaves float16 moving statistics at 0 and 1
        return losses
    net.set_train(False)
    return losses, net(x), net[1].moving_mean, net[1].moving_variance


class Norm(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(3, dtype=ms.float16)

    def construct(self, x, w):
        return (self.bn(x) * w).sum()


def main():
    x = Tensor(((np.arange(12).reshape(4, 3) % 5) / 2).astype(np.float16))
    w = Tensor(np.arange(12, dtype=np.float16).reshape(4, 3) / 8)
    norm = Norm()
    norm.set_train()
    return steps("to_float"), steps("dtype"), ops.grad(norm)(x, w)
''')

_program("matmul_batched_broadcast_gradients", '''
class Net(nn.Cell):
    def construct(self, a, b):
        y = ops.matmul(a, b)
        return (y * y).sum()


def main():
    a3 = Tensor((np.arange(24, dtype=np.float32).reshape(2, 4, 3) % 5 - 2) / 4)
    b3 = Tensor((np.arange(30, dtype=np.float32).reshape(2, 3, 5) % 7 - 3) / 4)
    b1 = Tensor(b3.asnumpy()[:1])
    v = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    grad = ops.grad(Net(), grad_position=(0, 1))
    return (ops.matmul(a3, b3), ops.matmul(a3, b1), ops.matmul(v, b3), ops.matmul(a3, v),
            grad(a3, b3), grad(a3, b1), grad(v, b3), grad(a3, v))
''')

_program("jit_levels_in_the_context", '''
def main():
    try:
        ms.set_context(jit_config={"jit_level": "O1"})
        after_config = ms.get_context("jit_level"), sorted(ms.get_context("jit_config").items())
        ms.set_context(jit_level="O0")
        after_level = ms.get_context("jit_level"), sorted(ms.get_context("jit_config").items())
        ms.set_context(jit_syntax_level=ms.STRICT)
        strict = ms.get_context("jit_syntax_level")
        ms.set_context(jit_syntax_level=ms.LAX)
        levels = (ms.STRICT, ms.COMPATIBLE, ms.LAX, ms.get_context("jit_syntax_level"))
        errors = (kind(lambda: ms.set_context(jit_config={"jit_level": "O5"})),
                  kind(lambda: ms.set_context(jit_config={"level": "O1"})),
                  kind(lambda: ms.set_context(jit_config="O1")),
                  kind(lambda: ms.set_context(jit_config={"jit_level": "O1", "infer_boost": "on"})),
                  kind(lambda: ms.set_context(jit_syntax_level=7)),
                  kind(lambda: ms.set_context(jit_syntax_level="STRICT")))
        net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
        out = net(Tensor(np.array([[1.0, 2.0]], np.float32)))
        return after_config, after_level, strict, levels, errors, out
    finally:
        ms.set_context(jit_config={}, jit_level="", jit_syntax_level=ms.LAX)
''')


if __name__ == "__main__":  # re-record ms_gaps_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_gaps_expected.json"))
