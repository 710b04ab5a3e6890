"""Programs for the ``nn`` cells, optimizers and helpers of the nn namespace's second batch
(transposed and 3-d convolutions, CellDict, Adagrad/Adadelta/AdaMax/ASGD/Rprop, 3-d norm and
pooling, ...): each cell's output and, where it has any, the gradients of a weighted sum of
its output with respect to every input and every trainable parameter (one GradOperation
Cell, so graph mode compiles forward and backward); optimizers by a few training steps
from fixed weights.

Every program starts from ``_COMMON``: ``fill(net)`` sets each parameter, in the order of
its sorted name, to a fixed pattern of its shape; ``check(net, *inputs)`` returns
``(output, input gradients, parameter gradients, parameter names)``.
``ms_nn_cells_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_nn_cells_programs`` re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_nn_cells_parts import PRIMITIVES, TRAINING
from tests.mindspore_ref.ms_nn_cells_parts import X3 as _X3
from tests.mindspore_ref.recorded import ERROR_KIND

_COMMON = ERROR_KIND + '''
def pattern(shape, k, scale=0.3):
    n = int(np.prod(shape)) if len(shape) else 1
    return (np.sin(np.arange(n) * 0.73 + k) * scale).reshape(shape).astype(np.float32)


def fill(net, scale=0.3):
    named = sorted(net.parameters_and_names(), key=lambda item: item[0])
    for k, (_, p) in enumerate(named):
        p.set_data(Tensor(pattern(p.shape, k, scale)))
    return [name for name, _ in named]


class Weighted(nn.Cell):
    """sum(net(*xs) * a fixed pattern): gradients that tell every output element apart."""

    def __init__(self, net, shape):
        super().__init__()
        self.net = net
        self.mask = Tensor(pattern(shape, 7, 1.0) + 1.5)

    def construct(self, *xs):
        return (self.net(*xs) * self.mask).sum()


class Grads(nn.Cell):
    def __init__(self, net, params):
        super().__init__()
        self.net = net
        self.params = ms.ParameterTuple(params)
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, *xs):
        return self.grad(self.net, self.params)(*xs)


def check(net, *arrays, train=True, prepare=None):
    names = fill(net)
    if prepare is not None:
        prepare(net)
    net.set_train(train)
    xs = [Tensor(a) for a in arrays]
    out = net(*xs)
    params = [p for _, p in sorted(net.parameters_and_names(), key=lambda item: item[0])
              if p.requires_grad]
    grads = Grads(Weighted(net, out.shape), params)(*xs)
    return out, grads, names
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _COMMON + body


# -- transposed and 3-d convolutions --------------------------------------------------------
_program("conv2d_transpose", '''
def main():
    x = pattern((2, 4, 3, 5), 1, 1.0)
    return (check(nn.Conv2dTranspose(4, 6, 3, has_bias=True), x),
            check(nn.Conv2dTranspose(4, 6, (2, 3), stride=2, pad_mode="valid"), x),
            check(nn.Conv2dTranspose(4, 6, 3, stride=(2, 3), pad_mode="pad", padding=(1, 0, 2, 1),
                                     output_padding=1, dilation=(2, 1), has_bias=True), x),
            check(nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="same", group=2), x),
            check(nn.Conv2dTranspose(4, 2, 1, stride=3, pad_mode="valid"), x))
''')

_program("conv1d_transpose", '''
def main():
    x = pattern((2, 4, 7), 2, 1.0)
    return (check(nn.Conv1dTranspose(4, 3, 3, has_bias=True), x),
            check(nn.Conv1dTranspose(4, 6, 4, stride=2, pad_mode="valid", dilation=2), x),
            check(nn.Conv1dTranspose(4, 6, 3, stride=3, pad_mode="pad", padding=1, group=2,
                                     has_bias=True), x))
''')

_program("conv3d", '''
def main():
    x = pattern((2, 4, 5, 4, 6), 3, 1.0)
    return (check(nn.Conv3d(4, 3, 3, has_bias=True), x),
            check(nn.Conv3d(4, 6, (2, 3, 2), stride=(2, 1, 2), pad_mode="valid", dilation=(2, 1, 1)), x),
            check(nn.Conv3d(4, 2, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1, 0, 1),
                            has_bias=True), x),
            check(nn.Conv3d(4, 6, 2, stride=(1, 2, 3), pad_mode="same"), x))
''')

_program("conv3d_transpose", '''
def main():
    x = pattern((1, 4, 3, 4, 2), 4, 1.0)
    return (check(nn.Conv3dTranspose(4, 2, 3, has_bias=True), x),
            check(nn.Conv3dTranspose(4, 3, (2, 3, 2), stride=(2, 1, 2), pad_mode="valid",
                                     dilation=(1, 2, 1)), x),
            check(nn.Conv3dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1, 0, 1),
                                     output_padding=1, has_bias=True), x),
            check(nn.Conv3dTranspose(4, 2, 2, stride=(1, 2, 3), pad_mode="same"), x))
''')


# -- 3-d normalization and pooling ---------------------------------------------------------
_program("batch_norm3d", '''
def main():
    x = pattern((2, 3, 2, 3, 4), 5, 2.0)
    net = nn.BatchNorm3d(3)
    train = check(net, x)
    moving = [p + 0 for _, p in sorted(net.parameters_and_names(), key=lambda item: item[0])]

    def positive_variance(bn):
        var = bn.bn2d.moving_variance
        var.set_data(Tensor(np.abs(var.asnumpy()) + 0.5))

    evaluated = check(nn.BatchNorm3d(3, eps=1e-3, momentum=0.8), x, train=False,
                      prepare=positive_variance)
    return train, moving, evaluated
''')


_program("max_pool3d", _X3 + '''
def main():
    return (check(nn.MaxPool3d(2, 2), X3),
            check(nn.MaxPool3d((2, 3, 2), (1, 2, 3), pad_mode="same"), X3),
            check(nn.MaxPool3d(3, 2, pad_mode="pad", padding=(1, 0, 1), ceil_mode=True), X3),
            check(nn.MaxPool3d(2, 1, pad_mode="pad", dilation=(1, 2, 2)), X3[0]),
            nn.MaxPool3d(3, 2, pad_mode="pad", padding=1, return_indices=True)(Tensor(X3)))
''')

_program("avg_pool3d", _X3 + '''
def main():
    return (check(nn.AvgPool3d(2, 2), X3),
            check(nn.AvgPool3d((2, 3, 2), (1, 2, 3), pad_mode="same"), X3),
            check(nn.AvgPool3d(3, 2, pad_mode="pad", padding=(1, 0, 1), ceil_mode=True), X3),
            check(nn.AvgPool3d(3, 2, pad_mode="pad", padding=1, count_include_pad=False), X3),
            check(nn.AvgPool3d(2, (2, 1, 3), divisor_override=3), X3[1]))
''')

_program("adaptive_pool3d", _X3 + '''
def main():
    return (check(nn.AdaptiveAvgPool3d((2, 4, 3)), X3),
            check(nn.AdaptiveAvgPool3d(3), X3[0]),
            check(nn.AdaptiveAvgPool3d((None, 2, 5)), X3),
            check(nn.AdaptiveMaxPool3d((2, 4, 3)), X3),
            check(nn.AdaptiveMaxPool3d(1), X3[1]))
''')

_program("lp_pool", _X3 + '''
def main():
    x1 = np.abs(X3[:, 0, 0]) + 0.1
    x2 = X3[:, :, 0]
    return (check(nn.LPPool1d(2, 3), x1), check(nn.LPPool1d(3, 2, 1), x1),
            check(nn.LPPool1d(1, 4, 3, ceil_mode=True), x1),
            check(nn.LPPool2d(2, 2), x2), check(nn.LPPool2d(2, (2, 3), (1, 2)), x2),
            check(nn.LPPool2d(4, 3, 2, ceil_mode=True), x2), check(nn.LPPool1d(2, 3), x1[0]),
            kind(lambda: nn.LPPool2d(2, 2)(Tensor(x2[0]))))
''')

# -- unpooling, local normalization, randomized ReLU, losses -------------------------------
_program("max_unpool", '''
class Unpool(nn.Cell):
    """The unpool cell with fixed indices, so only the values are an input."""

    def __init__(self, cell, indices, output_size=None):
        super().__init__()
        self.cell, self.indices, self.output_size = cell, Tensor(indices), output_size

    def construct(self, x):
        return self.cell(x, self.indices, self.output_size)


def window_indices(shape, kernel, out_sizes):
    """A valid max-pool index per window: offset (i + j) % k inside window i (row-major)."""
    lead, sizes = shape[:-len(kernel)], shape[-len(kernel):]
    grids = np.meshgrid(*[np.arange(n) * k + (np.arange(n) + t) % k
                          for t, (n, k) in enumerate(zip(sizes, kernel))], indexing="ij")
    flat = np.ravel_multi_index(grids, out_sizes)
    return np.broadcast_to(flat, shape).astype(np.int64).copy()


def main():
    x1 = pattern((2, 3, 4), 1, 1.0)
    x2 = pattern((2, 2, 2, 3), 2, 1.0)
    x3 = pattern((2, 2, 3, 2), 3, 1.0)
    x4 = pattern((1, 2, 2, 2, 3), 4, 1.0)
    return (check(Unpool(nn.MaxUnpool1d(2), window_indices(x1.shape, (2,), (8,))), x1),
            check(Unpool(nn.MaxUnpool1d(2, 2, 1), np.broadcast_to(np.array([0, 2, 3, 5]), x1.shape)
                         .astype(np.int64).copy()), x1),
            check(Unpool(nn.MaxUnpool1d(2), window_indices(x1.shape, (2,), (9,)), (2, 3, 9)), x1),
            check(Unpool(nn.MaxUnpool2d(2), window_indices(x2.shape, (2, 2), (4, 6))), x2),
            check(Unpool(nn.MaxUnpool2d((2, 3)), window_indices(x3[0].shape, (2, 3), (6, 6))), x3[0]),
            check(Unpool(nn.MaxUnpool3d(2), window_indices(x4.shape, (2, 2, 2), (4, 4, 6))), x4))
''')

_program("lrn", '''
def main():
    x = pattern((2, 7, 3, 2), 1, 2.0)
    return (check(nn.LRN(), x), check(nn.LRN(2, 2.0, 0.5, 0.75), x),
            check(nn.LRN(0, 1.0, 1e-2, 0.5), x))
''')

_program("rrelu", '''
def main():
    x = pattern((4, 50), 1, 2.0) + 0.01
    out = nn.RReLU(0.1, 0.3)(Tensor(x)).asnumpy()
    neg = x < 0
    ratio = out[neg] / x[neg]
    default = nn.RReLU()(Tensor(x)).asnumpy()
    return (bool(np.all(out[~neg] == x[~neg])), bool(ratio.min() >= 0.1), bool(ratio.max() <= 0.3),
            bool(np.unique(ratio).size > 50), bool((default[neg] / x[neg]).min() >= 0.125),
            nn.RReLU()(Tensor(np.ones((2, 3), np.float16))).dtype == ms.float16,
            kind(lambda: nn.RReLU(0.5, 0.2)))
''')

_program("poisson_nll_loss", '''
def main():
    x = pattern((3, 4), 1, 1.5)
    rate = np.abs(pattern((3, 4), 2, 2.0)) + 0.1
    t = np.array([[0.0, 1.0, 2.0, 5.0], [3.0, 0.0, 1.5, 0.5], [7.0, 2.0, 1.0, 0.0]], np.float32)

    class Loss(nn.Cell):
        def __init__(self, loss, target):
            super().__init__()
            self.loss, self.target = loss, Tensor(target)

        def construct(self, x):
            return self.loss(x, self.target)

    return (check(Loss(nn.PoissonNLLLoss(), t), x),
            check(Loss(nn.PoissonNLLLoss(log_input=False, full=True, reduction="sum"), t), rate),
            check(Loss(nn.PoissonNLLLoss(full=True, eps=1e-3, reduction="none"), t), x))
''')

_program("triplet_margin_with_distance_loss", '''
def main():
    a, p = pattern((4, 5), 1, 1.0), pattern((4, 5), 2, 1.0)
    n = a + pattern((4, 5), 3, 0.2) + np.float32(0.05) * np.arange(4, dtype=np.float32)[:, None]

    def cosine_distance(x, y):
        return 1.0 - (x * y).sum(1) / ops.sqrt((x * x).sum(1) * (y * y).sum(1))

    return (check(nn.TripletMarginWithDistanceLoss(), a, p, n),
            check(nn.TripletMarginWithDistanceLoss(swap=True, reduction="sum", margin=2.0), a, p, n),
            check(nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance,
                                                   reduction="none", margin=0.5), a, p, n))
''')

# -- composite layers, activations by name, gradient wrappers, learning-rate lists ----------
_program("bidense", '''
def main():
    x1, x2 = pattern((4, 3), 1, 1.0), pattern((4, 5), 2, 1.0)
    return (check(nn.BiDense(3, 5, 2), x1, x2), check(nn.BiDense(3, 5, 4, has_bias=False), x1, x2),
            check(nn.BiDense(3, 5, 2), pattern((2, 3, 3), 3, 1.0), pattern((2, 3, 5), 4, 1.0)))
''')

_program("bn_act_layers", '''
def positive_variance(net):
    var = net.batchnorm.moving_variance
    var.set_data(Tensor(np.abs(var.asnumpy()) + 0.5))


def main():
    x = pattern((4, 3), 1, 1.0)
    img = pattern((2, 3, 5, 5), 2, 1.0)
    return (check(nn.DenseBnAct(3, 4, activation="relu"), x),
            check(nn.DenseBnAct(3, 4, has_bn=True, activation="leakyrelu", alpha=0.1), x),
            check(nn.DenseBnAct(3, 2, has_bias=False, activation=nn.Tanh()), x),
            check(nn.Conv2dBnAct(3, 4, 3, has_bn=True, activation="sigmoid"), img),
            check(nn.Conv2dBnAct(3, 2, 2, stride=2, pad_mode="valid", has_bias=True), img),
            check(nn.Conv2dBnAct(3, 4, 3, has_bn=True, momentum=0.5, activation="hswish"), img,
                  train=False, prepare=positive_variance))
''')

_program("central_crop", '''
def main():
    img = pattern((2, 3, 7, 6), 1, 1.0)
    return (nn.CentralCrop(0.5)(Tensor(img)), nn.CentralCrop(0.75)(Tensor(img[0])),
            nn.CentralCrop(1.0)(Tensor(img)), nn.CentralCrop(0.3)(Tensor(img)),
            kind(lambda: nn.CentralCrop(1.5)), kind(lambda: nn.CentralCrop(0.5)(Tensor(img[0, 0]))))
''')

_program("get_activation", '''
def main():
    x = Tensor(pattern((2, 5), 1, 3.0))
    names = ["softmin", "softmax", "logsoftmax", "relu", "relu6", "silu", "tanh", "tanhshrink",
             "hardtanh", "gelu", "fast_gelu", "elu", "sigmoid", "softsign", "leakyrelu", "hswish",
             "hsigmoid", "logsigmoid", "softshrink", "hshrink", "mish"]
    return ([nn.get_activation(name)(x) for name in names], nn.get_activation(None) is None,
            type(nn.get_activation("prelu")).__name__, kind(lambda: nn.get_activation("swish")))
''')


# -- image quality -------------------------------------------------------------------------

_program("psnr", '''
def main():
    # graph mode in both runs: MindSpore 2.10's PyNative PSNR fails on CPU (ScalarCast of a
    # float32 max_val)
    ms.set_context(mode=ms.GRAPH_MODE)
    a = np.abs(pattern((2, 3, 4, 5), 1, 1.0))
    b = np.abs(pattern((2, 3, 4, 5), 2, 1.0))
    return check(nn.PSNR(), a, b), nn.PSNR(2.0)(Tensor(a), Tensor(b))
''')

# -- lookup and resizing -------------------------------------------------------------------
_program("embedding_lookup", '''
def lookup(cell, ids):
    """The forward only: MindSpore's gradient of the table is sparse (row slices), laid out
    differently per mode; tests/mindspore_ref/test_ms_nn_cells.py checks ours against NumPy."""
    fill(cell)
    return cell(Tensor(ids))


def main():
    ids = np.array([[0, 3, 5], [2, 2, 7]], np.int32)
    table = nn.EmbeddingLookup(8, 4)
    # max_norm is left out: MindSpore 2.10's CPU result scales rows by norms that are not
    # theirs (measured); test_ms_nn_cells.py checks ours against the documented formula
    return (lookup(table, ids),
            lookup(nn.EmbeddingLookup(6, 3), np.array([1, 6, -1, 4], np.int32)),
            table.embedding_table.shape, kind(lambda: nn.EmbeddingLookup(8, 4, sparse=False)))
''')

_program("upsample", '''
def main():
    x3 = pattern((2, 3, 5), 1, 1.0)
    x4 = pattern((2, 2, 3, 4), 2, 1.0)
    x5 = pattern((1, 2, 2, 3, 4), 3, 1.0)
    return (check(nn.Upsample(size=8), x3), check(nn.Upsample(size=(5, 7)), x4),
            check(nn.Upsample(size=(3, 4, 6)), x5),
            check(nn.Upsample(size=9, mode="linear"), x3),
            check(nn.Upsample(size=4, mode="linear", align_corners=True), x3),
            check(nn.Upsample(size=(6, 7), mode="bilinear"), x4),
            check(nn.Upsample(size=(2, 9), mode="bilinear", align_corners=True), x4),
            check(nn.Upsample(size=(5, 6), mode="bicubic"), x4),
            check(nn.Upsample(size=(6, 3), mode="bicubic", align_corners=True), x4),
            check(nn.Upsample(size=(3, 5, 5), mode="trilinear"), x5),
            check(nn.Upsample(scale_factor=(2.0, 1.5, 1.0), mode="trilinear", align_corners=True), x5),
            check(nn.Upsample(size=3, mode="area"), pattern((2, 3, 6), 4, 1.0)),
            kind(lambda: nn.Upsample(size=3, mode="area")(Tensor(x3))),
            check(nn.Upsample(size=(2, 3), mode="area"), x4),
            check(nn.Upsample(scale_factor=0.5, mode="area"), x5),
            check(nn.Upsample(size=(5, 7), mode="nearest-exact"), x4),
            check(nn.Upsample(size=3, mode="nearest-exact"), x3))
''')

# -- sequence losses -----------------------------------------------------------------------
_program("ctc_loss", '''
class Loss(nn.Cell):
    """The loss with fixed targets and lengths, so log_probs is the one input."""

    def __init__(self, loss, targets, input_lengths, target_lengths):
        super().__init__()
        self.loss = loss
        self.targets, self.input_lengths = Tensor(targets), Tensor(input_lengths)
        self.target_lengths = Tensor(target_lengths)

    def construct(self, log_probs):
        return self.loss(log_probs, self.targets, self.input_lengths, self.target_lengths)


def log_softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    return (x - np.log(np.exp(x).sum(axis=-1, keepdims=True))).astype(np.float32)


def main():
    lp = log_softmax(pattern((6, 3, 5), 1, 2.0))
    targets = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0]], np.int32)
    lengths_in = np.array([6, 5, 4], np.int32)
    lengths_t = np.array([3, 2, 1], np.int32)
    return (check(Loss(nn.CTCLoss(), targets, lengths_in, lengths_t), lp),
            check(Loss(nn.CTCLoss(reduction="sum"), targets, lengths_in, lengths_t), lp),
            check(Loss(nn.CTCLoss(blank=4, reduction="none"), np.array([[1, 2, 2], [3, 1, 0], [0, 0, 0]],
                                                                       np.int32), lengths_in, lengths_t), lp),
            # an impossible alignment: MindSpore 2.10 zeros its gradient but (against its
            # docs) not its loss with zero_infinity=True, so only the gradient is compared
            check(Loss(nn.CTCLoss(reduction="none", zero_infinity=True),
                       np.array([[1, 1, 1], [3, 1, 0], [4, 0, 0]], np.int32),
                       np.array([4, 5, 4], np.int32), lengths_t), lp)[1])
''')

_program("ssim", '''
class InputGrads(nn.Cell):
    """Gradients at the inputs only: MindSpore's SSIM holds its window as a (frozen)
    parameter, so check()'s fill would overwrite it."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, a, b):
        return self.grad(self.net)(a, b)


def run(net, a, b):
    x, y = Tensor(a), Tensor(b)
    return net(x, y), InputGrads(net)(x, y)


def main():
    # graph mode in both runs: MindSpore 2.10's PyNative SSIM fails on CPU (ScalarCast of a
    # float32 max_val), as its PSNR does
    ms.set_context(mode=ms.GRAPH_MODE)
    a = np.abs(pattern((2, 3, 16, 14), 1, 1.0))
    b = np.clip(a + pattern((2, 3, 16, 14), 2, 0.2), 0.0, 1.0).astype(np.float32)
    return (run(nn.SSIM(), a, b), run(nn.SSIM(2.0, 4, 0.8, 0.02, 0.05), a, b),
            nn.SSIM(filter_size=3, filter_sigma=1.0)(Tensor(a), Tensor(a)),
            kind(lambda: nn.SSIM(filter_size=20)(Tensor(a), Tensor(b))))
''')


_program("fractional_max_pool", _X3 + '''
def main():
    # forward only: MindSpore 2.10 cannot differentiate it on CPU (its gradient kernel
    # refuses float32 indices); test_ms_nn_cells.py checks our gradient against the indices
    x2 = X3[:, :, 0, :6, :7].copy()
    s2 = np.array([[[0.3, 0.7], [0.1, 0.9], [0.55, 0.25]], [[0.8, 0.4], [0.05, 0.6], [0.5, 0.5]]],
                  np.float32)
    s3 = np.concatenate([s2, s2[..., :1] * 0.5], -1)
    two, three = Tensor(s2), Tensor(s3)
    return (nn.FractionalMaxPool2d(2, output_size=(4, 5), _random_samples=two)(Tensor(x2)),
            nn.FractionalMaxPool2d((2, 3), output_size=3, _random_samples=two)(Tensor(x2)),
            nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.6), _random_samples=two)(Tensor(x2)),
            nn.FractionalMaxPool2d(2, output_size=(4, 5), return_indices=True, _random_samples=two)(
                Tensor(x2)),
            nn.FractionalMaxPool3d(2, output_size=(3, 4, 5), _random_samples=three)(Tensor(X3)),
            nn.FractionalMaxPool3d((2, 2, 3), output_size=(2, 3, 4), return_indices=True,
                                   _random_samples=three)(Tensor(X3)))
''')

# the containers, optimizers, wrappers, learning-rate lists, metrics and P.* classes: their
# sources live in ms_nn_cells_parts.py
for _name, _body in {**TRAINING, **PRIMITIVES}.items():
    _program(_name, _body)


if __name__ == "__main__":  # re-record ms_nn_cells_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_nn_cells_expected.json"))
