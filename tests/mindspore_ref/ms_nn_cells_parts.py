"""Program sources of :mod:`tests.mindspore_ref.ms_nn_cells_programs` kept apart to keep
files short: ``TRAINING`` (``CellDict``; ``Adagrad``, ``Adadelta``, ``AdaMax``, ``ASGD``,
``Rprop`` by a few training steps from fixed weights; ``WithGradCell``,
``ForwardValueAndGrad``, ``ParameterUpdate``; the decay-lr lists; ``Dice``,
``ConfusionMatrix``, ``Perplexity``, ``CosineSimilarity``, ``auc``, ``ROC``, ``BleuScore``)
and ``PRIMITIVES`` (``P.Conv3D``, ``P.Conv3DTranspose``, ``P.AvgPool3D``, ``P.MaxPool3D``,
``P.AdaptiveAvgPool3D``, ``P.UpsampleNearest3D``, ``P.UpsampleTrilinear3D``). Each body is
added to that module's ``_COMMON`` there, which records them."""

from __future__ import annotations

TRAINING: dict[str, str] = {}
PRIMITIVES: dict[str, str] = {}


def _add(group: dict[str, str], name: str, body: str) -> None:
    group[name] = body


# a pattern without ties (each window's maximum is unique)
X3 = '''
X3 = (np.sin(np.arange(2 * 3 * 5 * 6 * 7) * 1.37) * 2.0).astype(np.float32).reshape(2, 3, 5, 6, 7)
'''


# -- containers, optimizers, wrappers, learning-rate lists, metrics -------------------------
_add(TRAINING, "cell_dict", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellDict({"dense": nn.Dense(3, 4), "act": nn.Tanh()})
        self.layers["out"] = nn.Dense(4, 2, has_bias=False)

    def construct(self, x):
        return self.layers["out"](self.layers["act"](self.layers["dense"](x)))


def main():
    net = Net()
    out = check(net, pattern((5, 3), 1, 1.0))
    cells = nn.CellDict([("a", nn.ReLU()), ("b", nn.Dense(2, 2))])
    cells.update({"c": nn.Sigmoid(), "a": nn.Tanh()})
    popped = cells.pop("b")
    keys = list(cells.keys())
    del cells["c"]
    return (out, [name for name, _ in net.parameters_and_names()], keys, list(cells), len(cells),
            "a" in cells, "b" in cells, type(popped).__name__, type(cells["a"]).__name__,
            kind(lambda: cells.update({"x.y": nn.ReLU()})), kind(lambda: cells.update([("k",)])),
            kind(lambda: cells.update({1: nn.ReLU()})), kind(lambda: cells.update({"d": 3})))
''')

_OPTIM = '''
X = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0], [-0.7, 0.4, 0.9]], np.float32)
Y = np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 0.5], [0.2, -0.3]], np.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 4)
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        return self.out(ops.tanh(self.dense(x)))


def train(opt_fn, steps=3):
    net = Net()
    fill(net)
    opt = opt_fn(net.trainable_params())
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    losses = [step(Tensor(X), Tensor(Y)) for _ in range(steps)]
    return losses, [p for _, p in sorted(net.parameters_and_names(), key=lambda item: item[0])]
'''

_add(TRAINING, "nn_adagrad", _OPTIM + '''
def main():
    return (train(lambda ps: nn.Adagrad(ps, learning_rate=0.1)),
            train(lambda ps: nn.Adagrad(ps, accum=0.5, learning_rate=0.05, weight_decay=0.1)),
            train(lambda ps: nn.Adagrad(ps, learning_rate=0.02, update_slots=False)))
''')

_add(TRAINING, "nn_adadelta", _OPTIM + '''
def main():
    return (train(lambda ps: nn.Adadelta(ps)),
            train(lambda ps: nn.Adadelta(ps, learning_rate=0.5, rho=0.8, epsilon=1e-4,
                                         weight_decay=0.1)))
''')

_add(TRAINING, "nn_adamax", _OPTIM + '''
def main():
    return (train(lambda ps: nn.AdaMax(ps, learning_rate=0.05), steps=4),
            train(lambda ps: nn.AdaMax(ps, learning_rate=0.02, beta1=0.8, beta2=0.95, eps=1e-4,
                                       weight_decay=0.1)))
''')

_add(TRAINING, "nn_asgd", _OPTIM + '''
def main():
    opts = []

    def keep(opt):
        opts.append(opt)
        return opt

    plain = train(lambda ps: keep(nn.ASGD(ps, learning_rate=0.1)))
    averaged = train(lambda ps: keep(nn.ASGD(ps, learning_rate=0.05, lambd=0.01, alpha=0.5, t0=1.0,
                                             weight_decay=0.1)), steps=4)
    return plain, averaged, [[ax + 0 for ax in opt.ax] for opt in opts]
''')

_add(TRAINING, "nn_rprop", _OPTIM + '''
def main():
    return (train(lambda ps: nn.Rprop(ps, learning_rate=0.05), steps=4),
            train(lambda ps: nn.Rprop(ps, learning_rate=0.1, etas=(0.3, 1.5), step_sizes=(0.02, 0.12),
                                      weight_decay=0.1), steps=4))
''')

_add(TRAINING, "grad_wrappers", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)

    def construct(self, x):
        return ops.tanh(self.dense(x))


def main():
    x, y = Tensor(pattern((4, 3), 1, 1.0)), Tensor(pattern((4, 2), 2, 1.0))
    net = Net()
    fill(net)
    with_loss = nn.WithLossCell(net, nn.MSELoss())
    weights = ms.ParameterTuple(net.trainable_params())
    out = [nn.WithGradCell(net, nn.MSELoss())(x, y),
           nn.WithGradCell(with_loss)(x, y),
           nn.ForwardValueAndGrad(with_loss)(x, y),
           nn.ForwardValueAndGrad(with_loss, weights=weights, get_all=True, get_by_list=True)(x, y),
           nn.ForwardValueAndGrad(net, weights, get_by_list=True, sens_param=True)(
               x, Tensor(pattern((4, 2), 3, 1.0)))]
    target = ms.Parameter(Tensor(np.zeros((2, 2), np.float32)), name="target")
    update = nn.ParameterUpdate(target)
    update.phase = "update_param"
    returned = update(Tensor(pattern((2, 2), 4, 1.0)))
    return out, returned, target.value() + 0, kind(lambda: nn.ParameterUpdate(Tensor(np.ones(2))))
''')

_add(TRAINING, "decay_lr_lists", '''
def main():
    return (nn.inverse_decay_lr(0.1, 0.5, 7, 2, 2), nn.inverse_decay_lr(0.1, 0.5, 7, 2, 2, True),
            nn.natural_exp_decay_lr(0.1, 0.5, 7, 2, 2), nn.natural_exp_decay_lr(0.1, 0.5, 7, 2, 2, True),
            nn.polynomial_decay_lr(0.1, 0.01, 8, 2, 2, 0.5),
            nn.polynomial_decay_lr(0.1, 0.01, 8, 1, 3, 2.0, update_decay_epoch=True),
            kind(lambda: nn.inverse_decay_lr(0.1, 0.5, 7, 2, 0)),
            kind(lambda: nn.natural_exp_decay_lr(1, 0.5, 7, 2, 2)),
            kind(lambda: nn.polynomial_decay_lr(0.1, 0.01, 8, 2, 2, -1.0)))
''')

_add(TRAINING, "metric_scores", '''
def use(metric, *batches):
    """The metric's value as float64 (compared to a tolerance: summation orders differ)."""
    metric.clear()
    for batch in batches:
        metric.update(*batch)
    return np.asarray(metric.eval(), np.float64)


def main():
    pred = np.array([[0.2, 0.8, 0.1], [0.9, 0.05, 0.3], [0.4, 0.4, 0.7], [0.1, 0.2, 0.6]], np.float32)
    mask = np.array([[0, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]], np.float32)
    scores = np.array([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]], np.float32)
    labels = np.array([1, 0, 2, 1], np.int32)
    binary = np.array([0.3, 0.7, 0.5, 0.1, 0.9], np.float32)
    truth = np.array([0, 1, 1, 0, 0], np.int32)
    emb = pattern((4, 3), 1, 1.0)
    return ([use(nn.Dice(), (pred, mask)), use(nn.Dice(0.1), (pred, mask), (pred[:2], mask[:2]))],
            [use(nn.ConfusionMatrix(3), (scores, labels)),
             use(nn.ConfusionMatrix(2, threshold=0.6), (binary, truth)),
             use(nn.ConfusionMatrix(3, "target"), (scores, labels), (scores[:2], labels[::-1][:2])),
             use(nn.ConfusionMatrix(3, "prediction"), (scores, labels)),
             use(nn.ConfusionMatrix(3, "all"), (scores, labels))],
            [use(nn.Perplexity(), (scores, labels)), use(nn.Perplexity(ignore_label=1), (scores, labels))],
            [use(nn.CosineSimilarity(), (emb,)), use(nn.CosineSimilarity("dot", "sum"), (emb,)),
             use(nn.CosineSimilarity(reduction="mean", zero_diagonal=False), (emb,))],
            [np.float64(nn.auc(np.array([0.0, 0.2, 0.5, 1.0]), np.array([0.0, 0.6, 0.8, 1.0]))),
             np.float64(nn.auc(np.array([1.0, 0.5, 0.0]), np.array([1.0, 0.7, 0.0]))),
             np.float64(nn.auc(np.array([0.5, 0.0, 1.0, 0.2]), np.array([0.8, 0.0, 1.0, 0.6]),
                               reorder=True)),
             kind(lambda: nn.auc(np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 0.5])))],
            kind(lambda: use(nn.Dice())), kind(lambda: nn.ConfusionMatrix(3, "rows")))
''')

_add(TRAINING, "roc_bleu", '''
def use(metric, *batches):
    metric.clear()
    for batch in batches:
        metric.update(*batch)
    return metric.eval()


def main():
    scores = np.array([0.1, 0.4, 0.35, 0.8, 0.4, 0.7, 0.2], np.float32)
    labels = np.array([0, 0, 1, 1, 1, 0, 1], np.int32)
    candidates = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "home"]]
    references = [[["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]],
                  [["a", "dog", "ran", "to", "the", "house"], ["the", "dog", "went", "home"]]]
    return (use(nn.ROC(), (scores, labels)), use(nn.ROC(pos_label=0), (scores, labels)),
            use(nn.ROC(class_num=1), (scores[:4], labels[:4])),
            kind(lambda: use(nn.ROC(), (scores, np.ones(7, np.int32)))),
            [np.float64(use(nn.BleuScore(n), (candidates, references))) for n in (1, 2, 3, 4)],
            np.float64(use(nn.BleuScore(smooth=True), (candidates, references))),
            np.float64(use(nn.BleuScore(2), (candidates[:1], references[:1]),
                           (candidates[1:], references[1:]))),
            kind(lambda: nn.BleuScore(5)))
''')


# -- P.* classes over the same compositions ------------------------------------------------
_add(PRIMITIVES, "p_volume", X3 + '''
import importlib

P = importlib.import_module(ms.__name__ + ".ops.operations")


class Op(nn.Cell):
    """A P.* operation as a cell, with its weight (if any) a parameter."""

    def __init__(self, op, weight_shape=None):
        super().__init__()
        self.op = op
        self.weight = None if weight_shape is None else ms.Parameter(
            Tensor(np.zeros(weight_shape, np.float32)), name="weight")

    def construct(self, x):
        return self.op(x) if self.weight is None else self.op(x, self.weight)


def main():
    x = X3[:, :, :4, :5, :6].copy()
    return (check(Op(P.Conv3D(4, 2), (4, 3, 2, 2, 2)), x),
            check(Op(P.Conv3D(2, (2, 3, 1), pad_mode="pad", pad=(1, 0, 0, 2, 1, 1), stride=(2, 1, 2),
                              dilation=(2, 1, 1)), (2, 3, 2, 3, 1)), x),
            check(Op(P.Conv3D(4, 3, pad_mode="same", stride=2), (4, 3, 3, 3, 3)), x),
            check(Op(P.AvgPool3D(2, 2)), x), check(Op(P.AvgPool3D((2, 3, 2), 1, "same")), x),
            check(Op(P.AvgPool3D(3, 2, "pad", (1, 0, 1, 1, 0, 1), ceil_mode=True,
                                 count_include_pad=False)), x),
            check(Op(P.AvgPool3D(2, (1, 2, 2), divisor_override=5)), x),
            check(Op(P.MaxPool3D(2, 2)), x), check(Op(P.MaxPool3D((2, 3, 2), 1, "SAME")), x),
            check(Op(P.MaxPool3D(3, 2, "PAD", (1, 0, 1), ceil_mode=True)), x),
            check(Op(P.AdaptiveAvgPool3D((2, 3, 4))), x), check(Op(P.AdaptiveAvgPool3D((None, 2, 3))), x))
''')

_add(PRIMITIVES, "p_volume_transpose_resize", X3 + '''
import importlib

P = importlib.import_module(ms.__name__ + ".ops.operations")


class Op(nn.Cell):
    def __init__(self, op, weight_shape=None):
        super().__init__()
        self.op = op
        self.weight = None if weight_shape is None else ms.Parameter(
            Tensor(np.zeros(weight_shape, np.float32)), name="weight")

    def construct(self, x):
        return self.op(x) if self.weight is None else self.op(x, self.weight)


class Resize(nn.Cell):
    def __init__(self, op, output_size=None, scales=None):
        super().__init__()
        self.op, self.output_size, self.scales = op, output_size, scales

    def construct(self, x):
        return self.op(x, self.output_size, self.scales)


def main():
    x = X3[:1, :, :3, :4, :3].copy()
    return (check(Op(P.Conv3DTranspose(3, 2, 2), (3, 2, 2, 2, 2)), x),
            check(Op(P.Conv3DTranspose(3, 4, (2, 3, 2), pad_mode="pad", pad=(1, 0, 0, 1, 1, 1), stride=2,
                                       dilation=(1, 2, 1), output_padding=1), (3, 4, 2, 3, 2)), x),
            check(Op(P.Conv3DTranspose(3, 2, 3, pad_mode="same", stride=(1, 2, 2)), (3, 2, 3, 3, 3)), x),
            check(Resize(P.UpsampleNearest3D(), (5, 6, 4)), x),
            check(Resize(P.UpsampleNearest3D(), None, (2.0, 1.0, 2.0)), x),
            check(Resize(P.UpsampleTrilinear3D(), (5, 6, 4)), x),
            check(Resize(P.UpsampleTrilinear3D(True), (2, 7, 5)), x))
''')
