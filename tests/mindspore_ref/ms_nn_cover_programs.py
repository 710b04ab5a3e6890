"""Programs for the ``nn``, ``mint.optim``, ``mint.special`` and ``mint.linalg`` names no other
differential test spelled (issue 25): optimizers (two training steps from fixed weights and
gradients), learning-rate schedules (their values over steps), metrics (update/eval on fixed
data), RNN and Transformer cells (forward and gradients from weights set by parameter name),
loss-scale cells, losses, a few activation/padding/embedding cells, and the base classes
``nn.Optimizer``/``nn.LossBase``/``nn.Metric`` through small subclasses.

Every program starts from ``_COMMON``: ``fill(net)`` sets each parameter, in the order of its
sorted name, to a fixed pattern of its shape (and returns the names, so a naming difference
shows), ``train(...)`` runs ``nn.TrainOneStepCell`` steps and returns the losses and weights.
``ms_nn_cover_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_nn_cover_programs`` re-records them (``MINDSPORE_PYTHON``).
``UNTESTABLE``: names MindSpore 2.10 cannot run on CPU, with its error.
"""

from __future__ import annotations

from pathlib import Path

_COMMON = '''
import importlib

mint = importlib.import_module(ms.__name__ + ".mint")


def pattern(shape, k, scale=0.3):
    n = int(np.prod(shape)) if len(shape) else 1
    return (np.sin(np.arange(n) * 0.73 + k) * scale).reshape(shape).astype(np.float32)


def fill(net, scale=0.3):
    named = sorted(net.parameters_and_names(), key=lambda item: item[0])
    for k, (_, p) in enumerate(named):
        p.set_data(Tensor(pattern(p.shape, k, scale)))
    return [name for name, _ in named]


X = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0], [-0.7, 0.4, 0.9]], np.float32)
Y = np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 0.5], [0.2, -0.3]], np.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 4)
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        return self.out(ops.tanh(self.dense(x)))


def train(opt_fn, steps=2, loss_fn=None):
    net = Net()
    fill(net)
    opt = opt_fn(net.trainable_params())
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn or nn.MSELoss()), opt)
    losses = [step(Tensor(X), Tensor(Y)) for _ in range(steps)]
    return losses, [p for _, p in sorted(net.parameters_and_names(), key=lambda item: item[0])]
'''

PROGRAMS: dict[str, str] = {}
UNTESTABLE: dict[str, str] = {
    "nn:Lamb": "RuntimeError: Kernel select failed: Unsupported op [Lamb] on CPU",
    "nn:TrainOneStepWithLossScaleCell": "RuntimeError: Kernel select failed: Unsupported op "
                                        "[NPUGetFloatStatusV2] on CPU",
    "mint.optim:AdamW": "RuntimeError: The kernel AdamW unregistered. (graph mode: Unsupported op "
                        "[AdamW] on CPU)",
    "mint.optim:FusedAdamW": "RuntimeError: The kernel AdamW unregistered. (one parameter; with "
                             "more: For 'InplaceCopy, an unexpected kernel has been launched)",
    "mint.special:exp2": "RuntimeError: The kernel Exp2 unregistered.",
    "mint.linalg:vector_norm": "RuntimeError: The kernel LinalgVectorNorm unregistered.",
    "mint.linalg:norm": "RuntimeError: The kernel LinalgVectorNorm unregistered.",
    "mint.linalg:matrix_norm": "RuntimeError: The kernel LinalgVectorNorm unregistered.",
    "mint.linalg:inv": "RuntimeError: The kernel MatrixInverseExt unregistered.",
    "mint.linalg:qr": "RuntimeError: The kernel LinalgQr unregistered.",
    "nn:DistributedGradReducer": "Segmentation fault (calling it on a standalone CPU process, "
                                 "no communication initialised, kills MindSpore 2.10)",
}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _COMMON + body


# -- optimizers ----------------------------------------------------------------------------
_program("nn_adam", '''
def main():
    return (train(lambda ps: nn.Adam(ps, learning_rate=0.05)),
            train(lambda ps: nn.Adam(ps, learning_rate=0.02, beta1=0.8, beta2=0.99, eps=1e-6,
                                     weight_decay=0.1, use_nesterov=True)))
''')

_program("nn_adam_weight_decay", '''
def main():
    return (train(lambda ps: nn.AdamWeightDecay(ps, learning_rate=0.05)),
            train(lambda ps: nn.AdamWeightDecay(ps, learning_rate=0.02, beta1=0.8, beta2=0.99,
                                                eps=1e-4, weight_decay=0.3)))
''')

_program("nn_rmsprop", '''
def main():
    return (train(lambda ps: nn.RMSProp(ps, learning_rate=0.05)),
            train(lambda ps: nn.RMSProp(ps, learning_rate=0.02, decay=0.8, momentum=0.5,
                                        epsilon=1e-6, centered=True, weight_decay=0.1)))
''')

_program("nn_optimizer_subclass", '''
class HalfStep(nn.Optimizer):
    """Gradient descent of half the learning rate, written on the base class."""

    def __init__(self, params, learning_rate):
        super().__init__(learning_rate, params)

    def construct(self, gradients):
        lr = self.get_lr()
        for param, grad in zip(self.parameters, gradients):
            ops.assign(param, param - lr * 0.5 * grad)
        return True


def main():
    return train(lambda ps: HalfStep(ps, 0.2), steps=3)
''')

_program("nn_dynamic_lr_optimizer", '''
def main():
    schedule = nn.ExponentialDecayLR(0.1, 0.5, 1)
    return train(lambda ps: nn.Adam(ps, learning_rate=schedule), steps=3)
''')

_MINT_OPTIM = '''
class Linear(nn.Cell):

    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(Tensor(pattern((2, 3), 0)), name="weight")
        self.bias = ms.Parameter(Tensor(pattern((2,), 1)), name="bias")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.weight.T)) + self.bias


def run(make):
    # graph mode in both runs: MindSpore 2.10's PyNative mint.optim leaves parameters unchanged on CPU
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Linear()
    opt = make(net.trainable_params())

    def forward(a, b):
        return ((net(a) - b) ** 2).mean()

    step = ms.value_and_grad(forward, None, opt.parameters)
    losses = []
    for _ in range(3):
        loss, grads = step(Tensor(X), Tensor(Y))
        opt(grads)
        losses.append(loss)
    return losses, [p for _, p in sorted(net.parameters_and_names(), key=lambda item: item[0])]
'''

_program("mint_optim_sgd", _MINT_OPTIM + '''
def main():
    return (run(lambda ps: mint.optim.SGD(ps, lr=0.1)),
            run(lambda ps: mint.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)))
''')

_program("mint_optim_adam", _MINT_OPTIM + '''
def main():
    return (run(lambda ps: mint.optim.Adam(ps, lr=0.1)),
            run(lambda ps: mint.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.2)))
''')

# -- learning-rate schedules ---------------------------------------------------------------
_program("lr_schedule_cells", '''
def main():
    cells = [nn.CosineDecayLR(0.01, 0.1, 4), nn.ExponentialDecayLR(0.1, 0.9, 2),
             nn.ExponentialDecayLR(0.1, 0.9, 2, is_stair=True), nn.InverseDecayLR(0.1, 0.5, 2),
             nn.InverseDecayLR(0.1, 0.5, 2, True), nn.NaturalExpDecayLR(0.1, 0.5, 2),
             nn.NaturalExpDecayLR(0.1, 0.5, 2, True), nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5),
             nn.PolynomialDecayLR(0.1, 0.01, 2, 2.0, update_decay_steps=True), nn.WarmUpLR(0.1, 3)]
    return [[cell(Tensor(np.array(step, np.int32))) for step in range(6)] for cell in cells]
''')

_program("lr_schedule_lists", '''
def main():
    return (nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2),
            nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
            nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, is_stair=True),
            nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]),
            nn.warmup_lr(0.1, 6, 2, 2))
''')

# -- metrics -------------------------------------------------------------------------------
_METRIC_DATA = '''
LOGITS = np.array([[0.2, 0.5, 0.3, 0.0, 0.1, 0.9], [0.7, 0.1, 0.2, 0.3, 0.05, 0.0],
                   [0.1, 0.2, 0.6, 0.4, 0.3, 0.2], [0.3, 0.4, 0.1, 0.2, 0.8, 0.6]], np.float32)
LABELS = np.array([5, 1, 3, 0], np.int32)


def use(metric, *batches):
    metric.clear()
    for batch in batches:
        metric.update(*batch)
    return metric.eval()
'''

_program("metrics_classification", _METRIC_DATA + '''
def main():
    probs = Tensor(LOGITS[:, :3])
    labels = Tensor(np.array([1, 0, 0, 2], np.int32))
    recall = nn.Recall("classification")
    f1 = nn.F1()
    fbeta = nn.Fbeta(0.5)
    out = [use(recall, (probs, labels)).tolist(), use(f1, (probs, labels)).tolist(),
           use(fbeta, (probs, labels)).tolist(), use(fbeta, (probs, labels), (probs * 2, labels)).tolist()]
    y = Tensor(np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], np.int32))
    yp = Tensor(np.array([[1, 0, 0], [0, 1, 1], [0, 1, 0], [1, 0, 1]], np.int32))
    for make in (lambda: nn.Recall("multilabel"), lambda: nn.Precision("multilabel")):
        multi = make()
        out.append(use(multi, (yp, y), (yp[:2], y[1:3])).tolist())
        out.append(float(multi.eval(average=True)))
    none = np.zeros((1, 3), np.int32)
    out.append(use(nn.Recall("multilabel"), (none, none)).tolist())
    return out
''')

_program("metrics_topk_mse", _METRIC_DATA + '''
def main():
    top1, top5 = nn.Top1CategoricalAccuracy(), nn.Top5CategoricalAccuracy()
    mse = nn.MSE()
    x = Tensor(LOGITS)
    return (float(use(top1, (x, Tensor(LABELS)))), float(use(top5, (x, Tensor(LABELS)))),
            float(use(top5, (x, Tensor(np.array([3, 5, 0, 1], np.int32))))),
            round(float(use(mse, (x[:, :2], Tensor(LOGITS[:, 2:4])), (x[:, 4:], Tensor(LOGITS[:, :2])))), 5))
''')

_program("metrics_base_and_lookup", _METRIC_DATA + '''
class Mean(nn.Metric):
    """The mean of everything updated, written on the base class."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self.total, self.count = 0.0, 0

    def update(self, *inputs):
        values = self._convert_data(inputs[0])
        self.total += float(values.sum())
        self.count += values.size

    def eval(self):
        return self.total / self.count


def main():
    mean = Mean()
    got = use(mean, (Tensor(LOGITS),), (LOGITS[:2] * 3,))
    looked = [type(nn.get_metric_fn(name)).__name__ for name in ("accuracy", "mae", "mse", "top_1_accuracy")]
    recall = nn.get_metric_fn("recall", eval_type="classification")
    known = ("accuracy", "mae", "mse", "top_1_accuracy", "top_5_accuracy", "recall", "precision", "loss")
    return got, looked, type(recall).__name__, [name in nn.names() for name in known]
''')

# -- RNN cells -----------------------------------------------------------------------------
_RNN = '''
SEQ = pattern((2, 3, 3), 7, 1.0)  # (batch, time, input)


class Loss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, h):
        out, hn = self.net(x, h)
        return (out * out).sum() + (hn * 0.5).sum()


def check(net, h):
    names = fill(net)
    out = net(Tensor(SEQ), h)
    loss = Loss(net)
    grads = ms.grad(loss, grad_position=0, weights=loss.trainable_params())(Tensor(SEQ), h)
    return names, out, grads
'''

_program("nn_rnn_gru", _RNN + '''
def main():
    h = Tensor(pattern((2, 2, 4), 3, 0.5))
    return (check(nn.RNN(3, 4, num_layers=2, batch_first=True), h),
            check(nn.GRU(3, 4, batch_first=True, bidirectional=True), h),
            check(nn.RNN(3, 4, batch_first=True, nonlinearity="relu", has_bias=False),
                  Tensor(pattern((1, 2, 4), 1, 0.5))))
''')

_program("nn_lstm", _RNN.replace("(hn * 0.5).sum()", "(hn[0] * 0.5).sum() + hn[1].sum()") + '''
def main():
    h = (Tensor(pattern((2, 2, 4), 3, 0.5)), Tensor(pattern((2, 2, 4), 4, 0.5)))
    return check(nn.LSTM(3, 4, num_layers=2, batch_first=True), h)
''')

_program("nn_rnn_cells", '''
X3 = pattern((2, 3), 5, 1.0)
H4 = pattern((2, 4), 6, 0.5)


class Loss(nn.Cell):
    def __init__(self, net, lstm=False):
        super().__init__()
        self.net = net
        self.lstm = lstm

    def construct(self, x, h, c):
        if self.lstm:
            hn, cn = self.net(x, (h, c))
            return (hn * hn).sum() + cn.sum()
        return (self.net(x, h) ** 2).sum()


def check(net, lstm=False):
    names = fill(net)
    c = Tensor(H4 * 0.5)
    out = net(Tensor(X3), (Tensor(H4), c)) if lstm else net(Tensor(X3), Tensor(H4))
    loss = Loss(net, lstm)
    grads = ms.grad(loss, grad_position=(0, 1), weights=loss.trainable_params())(Tensor(X3), Tensor(H4), c)
    return names, out, grads


def main():
    return (check(nn.RNNCell(3, 4)), check(nn.RNNCell(3, 4, nonlinearity="relu")),
            check(nn.GRUCell(3, 4)), check(nn.LSTMCell(3, 4), True))
''')

# -- attention and Transformer -------------------------------------------------------------
_ATTN = '''
class Loss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, *xs):
        out = self.net(*xs)
        if isinstance(out, tuple):
            out = out[0]
        return (out * out).sum()


def check(net, *xs):
    names = fill(net, 0.2)
    net.set_train(False)
    out = net(*xs)
    loss = Loss(net)
    grads = ms.grad(loss, grad_position=0, weights=loss.trainable_params())(*xs)
    return names, out, grads


SRC = Tensor(pattern((3, 2, 8), 11, 1.0))  # (seq, batch, d_model)
TGT = Tensor(pattern((2, 2, 8), 12, 1.0))
'''

_program("nn_multihead_attention", _ATTN + '''
def main():
    mask = Tensor(np.array([[False, False, True], [False, False, False]]))
    # query, key and value: equal values, separate tensors. One tensor passed as all three:
    # MindSpore 2.10 gives each position the total gradient, we give each its own (not recorded)
    return (check(nn.MultiheadAttention(8, 2), SRC, SRC + 0, SRC * 1),
            check(nn.MultiheadAttention(8, 2, batch_first=True), TGT, SRC.swapaxes(0, 1)[:2],
                  SRC.swapaxes(0, 1)[:2]),
            check(nn.MultiheadAttention(8, 2, has_bias=False), SRC, SRC + 0, SRC * 1, mask))
''')

_program("nn_transformer_encoder", _ATTN + '''
def main():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=True), 2,
                                norm=nn.LayerNorm((8,)))
    return check(layer, SRC), check(enc, SRC)
''')

_program("nn_transformer_decoder", _ATTN + '''
def main():
    layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation="gelu")
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2)
    return check(layer, TGT, SRC), check(dec, TGT, SRC)
''')

_program("nn_transformer", _ATTN + '''
def main():
    net = nn.Transformer(8, 2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                         dropout=0.0)
    return check(net, SRC, TGT)
''')

# -- losses, simple cells, evaluation wrapper ----------------------------------------------
_program("nn_losses", '''
class Weighted(nn.LossBase):
    """Absolute error scaled by 2, reduced by the base class."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def construct(self, x, y):
        return self.get_loss(ops.abs(x - y), 2.0)


class Grad(nn.Cell):
    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def construct(self, x, y):
        return self.loss(x, y)


def both(loss, x, y):
    return loss(x, y), ms.grad(Grad(loss), grad_position=0)(x, y)


def main():
    x, y = Tensor(X[:, :2] * 0.7), Tensor(Y)
    logits = Tensor(X)
    labels = Tensor(np.array([2, 0, 1, 2], np.int32))
    soft = Tensor(np.array([[0.2, 0.3, 0.5]] * 4, np.float32))
    return (both(nn.L1Loss(), x, y), both(nn.L1Loss("sum"), x, y), both(nn.MSELoss(), x, y),
            both(nn.MSELoss("none"), x, y)[0], both(Weighted(), x, y), both(Weighted("none"), x, y)[0],
            both(nn.CrossEntropyLoss(), logits, labels),
            both(nn.CrossEntropyLoss(label_smoothing=0.1), logits, labels),
            both(nn.CrossEntropyLoss(weight=Tensor(np.array([0.5, 1.0, 2.0], np.float32)), reduction="sum"),
                 logits, labels),
            both(nn.CrossEntropyLoss(), logits, soft))
''')

_program("nn_simple_cells", '''
class Apply(nn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def construct(self, x):
        return (self.cell(x) * self.cell(x)).sum()


def main():
    x = Tensor(np.array([[-7.0, -1.5, 0.0, 0.4], [2.5, 5.9, 6.5, 12.0]], np.float32))
    out = []
    for cell in (nn.ReLU6(), nn.FastGelu()):
        out.append((cell(x), ms.grad(Apply(cell))(x)))
    img = Tensor(pattern((1, 2, 2, 3), 2, 1.0))
    out.append(nn.Pad(((0, 0), (0, 0), (1, 0), (2, 1)))(img))
    out.append(nn.Pad(((0, 0), (0, 0), (1, 1), (2, 2)), mode="REFLECT")(img))
    out.append(nn.Pad(((0, 0), (1, 0), (1, 1), (0, 2)), mode="SYMMETRIC")(img))
    emb = nn.Embedding(5, 3, padding_idx=1)
    fill(emb)
    ids = Tensor(np.array([[0, 1, 4], [3, 1, 2]], np.int32))
    out.append((emb(ids), emb.embedding_table.shape))
    grads = ms.grad(Apply(emb), grad_position=None, weights=emb.trainable_params())(ids)
    out.append(grads)
    return out
''')

_program("nn_with_eval_cell", '''
def main():
    net = Net()
    fill(net)
    evaluate = nn.WithEvalCell(net, nn.MSELoss())
    evaluate.set_train(False)
    return evaluate(Tensor(X), Tensor(Y))
''')

# -- loss scaling --------------------------------------------------------------------------
_program("nn_loss_scale_cells", '''
class Update(nn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell
        self.scale = ms.Parameter(Tensor(np.array(16.0, np.float32)), name="scale")

    def construct(self, overflow):
        return self.cell(self.scale, overflow)


def main():
    out = []
    dynamic = Update(nn.DynamicLossScaleUpdateCell(16.0, 2, 2))
    for flag in (False, False, False, True, False, True):
        out.append((dynamic(Tensor(flag)), dynamic.scale.value() + 0))
    out.append(dynamic.cell.get_loss_scale())
    fixed = Update(nn.FixedLossScaleUpdateCell(8.0))
    out.append((fixed(Tensor(True)), fixed.scale.value() + 0, fixed.cell.get_loss_scale()))
    return out
''')

# -- a distributed cell on one standalone CPU process --------------------------------------
_program("nn_sync_batchnorm", '''
def main():
    net = nn.SyncBatchNorm(3)
    net.set_train(False)
    x = Tensor(pattern((2, 3, 2, 2), 1, 1.0))
    return net(x)
''')


if __name__ == "__main__":  # re-record ms_nn_cover_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_nn_cover_expected.json"))
