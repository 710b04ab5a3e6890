"""Programs that build ``P.*`` classes (``mindspore.ops.operations``) with MindSpore 2.10's
own constructor keywords and call them with its call arguments: the required attributes
(``P.DepthToSpace(block_size=2)``), the operands MindSpore passes at call time
(``P.ReduceSum(keep_dims=True)(x, axis)``, ``P.Transpose()(x, perm)``, ``P.Cast()(x, type)``)
and the declared attributes (``P.Conv2D(out_channel=, kernel_size=)``, ``P.Dropout(Seed0=)``,
``P.BatchNorm(data_format=)``). Family programs (:mod:`tests.mindspore_ref.families`):
compiled as one Cell in graph mode, with gradients where the class has them.
``ms_signatures_more_expected.json`` holds MindSpore 2.10's answers on CPU;
``python -m tests.mindspore_ref.ms_signatures_more_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
P = ms.ops.operations
X = np.array([[0.3, -1.2, 2.5, 0.7], [1.9, -0.4, -2.2, 0.05], [-0.6, 1.1, 0.45, -1.7]], np.float32)
B = np.array([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
I = np.array([2, 0, 1], np.int32)
SQ = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 2.0], [4.0, 0.0, 1.5]], np.float32)
IMG = (np.arange(2 * 4 * 4 * 4, dtype=np.float32).reshape(2, 4, 4, 4) % 7 - 3) / 3
W = (np.arange(2 * 4 * 3 * 3, dtype=np.float32).reshape(2, 4, 3, 3) % 5 - 2) / 4
C4 = np.array([0.5, -1.0, 0.25, 2.0], np.float32)
V = np.array([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.0, 2.0]], np.float32)
SEQ = np.array([1, 3, 2], np.int32)
P56 = (np.arange(2 * 2 * 5 * 6, dtype=np.float32).reshape(2, 2, 5, 6) % 7 - 3) / 3 + \
    np.arange(6, dtype=np.float32) * 0.01
'''
_ARRAYS = ("X", "B", "I", "SQ", "IMG", "W", "C4", "V", "SEQ", "P56")
PROGRAMS: dict[str, str] = {}
# names MindSpore 2.10's CPU build cannot run (its error), tested against NumPy instead
UNTESTABLE = {"ops:layer_norm": "RuntimeError: Create kernelmod for op LayerNormExt failed (in a "
                                "Cell, both modes; its docstring lists no CPU)"}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads)


_family("required_attributes", [
    "P.AdaptiveAvgPool2D(output_size=(2, 2))(img)", "P.DepthToSpace(block_size=2)(img)",
    "P.SpaceToDepth(block_size=2)(img)", "P.ChannelShuffle(group=2)(img)",
    "P.Bucketize(boundaries=[0.0, 1.0])(x)", "P.LpNorm(axis=1, p=2)(x)",
    "P.MatrixPower(n=2)(sq)", "P.Cummin(axis=0)(x)", "P.ReverseV2(axis=(1,))(x)",
    "P.FillDiagonal(fill_value=5.0)(x)", "P.Renorm(p=2, dim=0, maxnorm=1.0)(x)",
    "P.ReverseSequence(seq_dim=1, batch_dim=0)(x, seq)", "P.TrilIndices(row=3, col=3)()",
    "P.TriuIndices(row=3, col=4, offset=1)()", "P.InplaceAdd(indices=(0, 2))(x, v)",
    "P.InplaceSub(indices=(1, 0))(x, v)", "P.ResizeNearestNeighbor(size=(6, 7))(img)",
    "P.SpaceToBatchND(block_shape=[2, 2], paddings=[[0, 0], [0, 0]])(img)",
    "P.MaxPoolWithArgmaxV2(kernel_size=2, strides=2)(img)", "P.Im2Col(ksizes=2)(img)",
], [("P.AdaptiveAvgPool2D(output_size=(2, 2))({})", ["IMG"]), ("P.DepthToSpace(block_size=2)({})", ["IMG"]),
    ("P.LpNorm(axis=1, p=2)({})", ["X"]), ("P.MatrixPower(n=2)({})", ["SQ"]),
    ("P.ReverseV2(axis=(1,))({})", ["X"]), ("P.ResizeNearestNeighbor(size=(6, 7))({})", ["IMG"])])

_family("call_operands", [
    "P.ReduceSum(keep_dims=True, skip_mode=False)(x, 1)", "P.ReduceSum(skip_mode=True)(x, 0)",
    "P.ReduceMean(keep_dims=True)(x, (0,))", "P.ReduceMax(keep_dims=False)(x, 1)",
    "P.ReduceProd(keep_dims=True)(x, ())", "P.ReduceAll(keep_dims=False)(b, 1)",
    "P.ReduceAny(keep_dims=True)(b, 0)", "P.Transpose()(x, (1, 0))", "P.Reshape()(x, (4, 3))",
    "P.ExpandDims()(x, 1)", "P.Slice()(x, (0, 1), (2, 2))", "P.Gather(batch_dims=0)(x, i, 1)",
    "P.Gather(batch_dims=1)(img, ops.reshape(i[:2], (2, 1)), 2)",
    "P.Gather(batch_dims=1)(x, ops.reshape(i, (3, 1)), 1)", "P.Cast()(x, ms.float16)",
    "P.CumSum(exclusive=True, reverse=True)(x, 1)",
    "P.TopK(sorted=True)(x, 2)", "P.GeLU()(x)",
], [("P.ReduceSum(keep_dims=True)({}, 1)", ["X"]), ("P.ReduceMean(keep_dims=True)({}, (0,))", ["X"]),
    ("P.Transpose()({}, (1, 0))", ["X"]), ("P.Gather(batch_dims=0)({}, Tensor(I), 1)", ["X"]),
    ("P.Gather(batch_dims=1)({}, ops.reshape(Tensor(I)[:2], (2, 1)), 2)", ["IMG"]),
    ("P.CumSum(exclusive=True, reverse=True)({}, 1)", ["X"]), ("P.GeLU()({})", ["X"]),
    ("P.TopK(sorted=True)({}, 2)[0]", ["X"])])

_family("declared_attributes", [
    "P.Conv2D(out_channel=2, kernel_size=3, pad_mode='pad', pad=1)(img, w)",
    "P.Conv2D(2, (3, 3), stride=2, data_format='NCHW')(img, w)",
    "P.BiasAdd(data_format='NCHW')(img, c4)", "P.BiasAdd(data_format='NHWC')(img, c4)",
    "P.OneHot(axis=0)(i, 3, Tensor(2.0), Tensor(-1.0))",
    "P.Dropout(keep_prob=1.0, Seed0=1, Seed1=2)(x)",
    "P.BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')"
    "(img, c4, c4 * 0.5, c4 * 0.1, c4 * c4 + 1)[0]",
    "P.AvgPool(kernel_size=2, strides=1, pad_mode='VALID', data_format='NCHW')(img)",
    "P.MaxPool(kernel_size=2, strides=2, pad_mode='same', data_format='NCHW')(img)",
], [("P.Conv2D(out_channel=2, kernel_size=3, pad_mode='pad', pad=1)({}, {})", ["IMG", "W"]),
    ("P.BiasAdd(data_format='NCHW')({}, {})", ["IMG", "C4"]),
    ("P.AvgPool(kernel_size=2, strides=1, pad_mode='VALID')({})", ["IMG"]),
    ("P.MaxPool(kernel_size=2, strides=2, pad_mode='same')({})", ["IMG"])])
# ops functions whose 2.x form replaced the 1.x one (padding, modes, indices)
_family("pool_pad_permute_keywords", [
    "ops.max_pool2d(p56, kernel_size=3, stride=2, padding=1, dilation=1, return_indices=True,"
    " ceil_mode=True)",
    "ops.max_pool2d(p56, 2)", "ops.max_pool2d(p56, (3, 2), (1, 2), (1, 0), (2, 1))",
    "ops.avg_pool2d(p56, kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)",
    "ops.avg_pool2d(input_x=p56)", "ops.avg_pool2d(p56, 2, 2, 0, False, True, 3)",
    "ops.avg_pool2d(p56, 3, 1, (1, 0, 1, 0))", "ops.avg_pool2d(p56, 2, 2, 1, True, True, 0)",
    "ops.pad(x, (1, 2), mode='constant', value=1.5)",
    "ops.pad(input_x=p56, padding=(1, 1, 2, 0), mode='reflect')",
    "ops.pad(p56, (1, 0, 0, 2), mode='replicate')", "ops.pad(p56, [2, 1, 1, 1], mode='circular')",
    "ops.pad(x, (-1, 1))", "ops.pad(x, (0, 0, 1, 1))", "ops.permute(input=x, axis=(1, 0))",
], [("ops.max_pool2d({}, kernel_size=3, stride=2, padding=1, ceil_mode=True)", ["P56"]),
    ("ops.avg_pool2d({}, kernel_size=3, stride=2, padding=1, ceil_mode=True,"
     " count_include_pad=False)", ["P56"]),
    ("ops.avg_pool2d({}, 2, 2, 0, False, True, 3)", ["P56"]),
    ("ops.pad({}, (1, 1, 2, 0), mode='reflect')", ["P56"]), ("ops.pad({}, (1, 2), value=1.5)", ["X"]),
    ("ops.permute({}, (1, 0))", ["X"])])

# nn cells built with MindSpore's constructor keywords (not families: training steps, metrics)
_NN_PRELUDE = _PRELUDE + '''
T = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0], [-0.7, 0.4, 0.9]], np.float32)
L = np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 0.5], [0.2, -0.3]], np.float32)


class Net(nn.Cell):
    def __init__(self, half=False):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.half = half
        for k, (_, p) in enumerate(sorted(self.parameters_and_names(), key=lambda item: item[0])):
            n = int(np.prod(p.shape))
            p.set_data(Tensor((np.sin(np.arange(n) * 0.73 + k) * 0.3).reshape(p.shape).astype(np.float32)))

    def construct(self, x):
        out = self.dense(x)
        return ops.cast(out, ms.float16) if self.half else out
'''

PROGRAMS["nn_train_and_eval_cells"] = _NN_PRELUDE + '''
def main():
    net = Net()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=None, return_grad=True)
    loss, grads = step(Tensor(T), Tensor(L))
    named = sorted(grads.items())
    plain = nn.TrainOneStepCell(network=nn.WithLossCell(Net(), nn.MSELoss()),
                                optimizer=nn.SGD(Net().trainable_params()), sens=2.0)
    evaluate = nn.WithEvalCell(Net(half=True), nn.MSELoss(), add_cast_fp32=True)
    eval_loss, outputs, label = evaluate(Tensor(T), Tensor(L).astype(ms.float16))
    return (loss, [n for n, _ in named], [g for _, g in named], net.dense.weight, plain(Tensor(T), Tensor(L)),
            eval_loss, outputs, label, nn.WithEvalCell(Net(), nn.MSELoss())(Tensor(T), Tensor(L)))
'''

PROGRAMS["nn_layer_keywords"] = _NN_PRELUDE + '''
def main():
    drop = nn.Dropout(keep_prob=0.5, p=None, dtype=ms.float32)
    drop.set_train(False)
    metric = nn.Fbeta(beta=2.0)
    metric.clear()
    metric.update(Tensor(np.array([[0.2, 0.8], [0.7, 0.3], [0.4, 0.6], [0.9, 0.1]], np.float32)),
                  Tensor(np.array([1, 0, 0, 1], np.int32)))
    img = Tensor(IMG[:1, :2])
    return (drop(Tensor(X)), metric.eval(), metric.eval(average=True),
            nn.ReduceLogSumExp(axis=1, keep_dims=True)(Tensor(X)), nn.ReduceLogSumExp(0)(Tensor(X)),
            nn.ReflectionPad1d(padding=(1, 2))(Tensor(X)), nn.ReflectionPad2d(padding=1)(img),
            nn.ReflectionPad3d(padding=(1, 0, 1, 1, 0, 1))(Tensor(IMG[:1])),
            nn.ZeroPad2d(padding=(1, 0, 2, 1))(img))
'''


PROGRAMS["nn_pool_keywords"] = _NN_PRELUDE + '''
def main():
    x = Tensor(P56)
    return (nn.MaxPool2d(kernel_size=3, stride=2, pad_mode='pad', padding=1, dilation=1,
                         return_indices=True, ceil_mode=True)(x),
            nn.MaxPool2d(kernel_size=2, stride=2, pad_mode='pad', padding=1)(Tensor(P56[0])),
            nn.MaxPool2d(kernel_size=2, stride=1, pad_mode='same', data_format='NCHW')(x),
            nn.AvgPool2d(kernel_size=3, stride=2, pad_mode='pad', padding=1, ceil_mode=True,
                         count_include_pad=False)(x),
            nn.AvgPool2d(kernel_size=2, stride=2, ceil_mode=True)(x),
            nn.AvgPool2d(kernel_size=2, stride=2, pad_mode='pad', divisor_override=3)(x),
            nn.AvgPool2d(kernel_size=2, stride=2, pad_mode='pad', padding=1)(Tensor(P56[0])),
            nn.AvgPool2d(kernel_size=2, stride=1, pad_mode='valid', data_format='NCHW')(x))
'''


if __name__ == "__main__":  # re-record ms_signatures_more_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_signatures_more_expected.json"))
