"""``mindspore.mint`` programs (issue 25): mint's functions, ``mint.nn`` Cells and
``mint.nn.functional`` inside a Cell's ``construct`` (compiled in graph mode), limited to
what MindSpore 2.10 documents and runs on CPU. Each returns nested lists, dtype names and
shapes, so values, dtypes and the int64 index conventions all compare.

``EXPECTED`` (``ms_mint_expected.json``) holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_mint_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}

_HELPERS = '''
mint = ms.mint


def out(t):
    return [str(t.dtype), list(t.shape), t]


X = np.array([[0.5, -1.25, 2.0, 3.5], [-0.75, 1.5, -2.5, 0.25], [1.0, 0.0, -3.0, 2.25]], np.float32)
I = (np.arange(12, dtype=np.int32).reshape(3, 4) - 5)
'''


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _HELPERS + body


_program("reductions", '''
class Net(nn.Cell):
    def construct(self, x, i):
        return (mint.sum(x, dim=1, keepdim=True), mint.sum(i), mint.mean(x, (0, 1)),
                mint.prod(x, 1), mint.amax(x), mint.amin(x, 0), mint.all(i, 1), mint.any(x),
                mint.cumprod(i, 0), mint.max(x, x * 0.5))


def main():
    return [out(t) for t in Net()(ms.tensor(X), ms.tensor(I))]
''')

_program("max_min_with_dim", '''
class Net(nn.Cell):
    def construct(self, x):
        values, indices = mint.max(x, 1, keepdim=True)
        return values, indices, mint.max(x), mint.min(x)


def main():
    return [out(t) for t in Net()(ms.tensor(X))]
''')

_program("elementwise", '''
class Net(nn.Cell):
    def construct(self, x, i):
        return (mint.add(x, i), mint.sub(x, 2.0), mint.divide(i, 4), mint.abs(x), mint.neg(i),
                mint.exp(x), mint.log1p(mint.abs(x)), mint.sqrt(mint.abs(x)), mint.rsqrt(mint.abs(x) + 1),
                mint.tanh(x), mint.sigmoid(x), mint.erf(x), mint.erfc(x), mint.floor(x), mint.ceil(x),
                mint.sign(x), mint.square(i), mint.maximum(x, i), mint.minimum(x, 0.5 * i),
                mint.eq(i, 3), mint.ne(x, 0.0), mint.gt(x, i), mint.le(i, 0),
                mint.logical_and(x, i), mint.logical_xor(x, i), mint.reciprocal(x + 10),
                mint.float_power(x, 2), mint.xlogy(mint.abs(x) + 1, mint.abs(x) + 2),
                mint.lerp(x, x * 3, 0.25), mint.sinc(x), mint.round(x), mint.nan_to_num(x / 0.0),
                mint.gcd(i, i + 9), mint.logical_not(i))


def main():
    return [out(t) for t in Net()(ms.tensor(X), ms.tensor(I))]
''')

_program("shapes_and_joins", '''
class Net(nn.Cell):
    def construct(self, x):
        return (mint.cat((x, x), 1), mint.concat([x, x]), mint.permute(x, (1, 0)),
                mint.flip(x, (0, 1)), mint.tile(x, (2,)), mint.triu(x, 1), mint.ravel(x),
                mint.hstack((x, x)), mint.narrow(x, 1, 1, 2), mint.flatten(x))


def main():
    return [out(t) for t in Net()(ms.tensor(X))]
''')

_program("gather_scatter", '''
class Net(nn.Cell):
    def construct(self, x, index):
        return (mint.gather(x, 1, index), mint.scatter(x, 1, index, x[:, :2] * 10),
                mint.where(x > 0, x, 0.0), mint.where(x > 0, 1.0, x))


def main():
    index = ms.tensor(np.array([[0, 3], [2, 1], [1, 1]], np.int64))
    return [out(t) for t in Net()(ms.tensor(X), index)]
''')

_program("products_and_distances", '''
class Net(nn.Cell):
    def construct(self, x, b):
        return (mint.matmul(x, x[0]), mint.bmm(b, b), mint.cdist(x, x * 2),
                mint.cross(x[:, :3], x[:, 1:]), mint.isclose(x, x + 1e-6))


def main():
    b = ms.tensor(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 10)
    return [out(t) for t in Net()(ms.tensor(X), b)]
''')

_program("searchsorted_and_creation", '''
class Net(nn.Cell):
    def construct(self, s, v, x):
        return (mint.searchsorted(s, v), mint.searchsorted(s, v, right=True), mint.zeros((2, 3)),
                mint.zeros((2,), dtype=ms.int32))


def main():
    s = ms.tensor(np.array([1.0, 3.0, 5.0, 7.0], np.float32))
    v = ms.tensor(np.array([0.0, 3.0, 6.0, 9.0], np.float32))
    return [out(t) for t in Net()(s, v, ms.tensor(X))]
''')

_program("pynative_value_dependent", '''
def main():
    x = ms.tensor(I)
    values, inverse, counts = mint.unique_consecutive(ms.tensor(np.array([1, 1, 2, 2, 3, 1, 1])),
                                                      return_inverse=True, return_counts=True)
    return ([out(t) for t in (mint.nonzero(x), mint.masked_select(x, x > 3), values, inverse, counts,
                              mint.gcd(ms.tensor(np.array([12, 18, -7])), ms.tensor(np.array([8, 27, 14]))),
                              mint.erfinv(ms.tensor(np.array([0.0, 0.5, -0.9], np.float32))))]
            + [mint.allclose(x, x), mint.allclose(ms.tensor(X), ms.tensor(X) + 1e-6)])
''')

_program("functional_layers", '''
F = mint.nn.functional


class Net(nn.Cell):
    def construct(self, x, w, images):
        return (F.relu(x), F.sigmoid(x), F.tanh(x), F.silu(x), F.softmax(x, 1), F.glu(x),
                F.linear(x, w, w[:, 0]), F.flatten(images), F.prelu(x, ms.tensor([0.1], ms.float32)),
                F.binary_cross_entropy(F.sigmoid(x), (x > 0).astype(ms.float32)),
                F.group_norm(images, 2), F.adaptive_max_pool2d(images, 2))


def main():
    w = ms.tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
    images = ms.tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) % 7)
    return [out(t) for t in Net()(ms.tensor(X), w, images)]
''')

_program("nn_cells", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = mint.nn.Linear(4, 3, weight_init="ones", bias_init="zeros")
        self.acts = (mint.nn.ReLU(), mint.nn.Sigmoid(), mint.nn.Hardshrink(0.75), mint.nn.Hardsigmoid(),
                     mint.nn.Hardswish(), mint.nn.Identity(1, a=2))
        self.pool = mint.nn.AdaptiveMaxPool2d(2)

    def construct(self, x, images):
        return (self.fc(x),) + tuple(act(x) for act in self.acts) + (self.pool(images),)


def main():
    net = Net()
    images = ms.tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) % 7)
    names = [p.name for p in mint.nn.Linear(4, 2).trainable_params()]
    return [out(t) for t in net(ms.tensor(X), images)] + [names, repr(mint.nn.Linear(4, 2))]
''')

_program("grad_through_mint", '''
class Net(nn.Cell):
    def construct(self, x):
        return mint.sum(mint.narrow(x, 1, 1, 2) * mint.gather(x, 1, ms.tensor([[0, 0], [1, 3], [2, 2]])))


def main():
    x = ms.tensor(X)
    net = Net()
    return out(ms.grad(net)(x)), out(net(x))
''')

_program("more_cells", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten, self.softmax, self.silu = mint.nn.Flatten(), mint.nn.Softmax(1), mint.nn.SiLU()
        self.tanh, self.shrink, self.glu = mint.nn.Tanh(), mint.nn.Softshrink(0.3), mint.nn.GLU(1)
        self.shuffle, self.smooth = mint.nn.PixelShuffle(2), mint.nn.SmoothL1Loss(beta=0.5)
        self.nll, self.bce = mint.nn.NLLLoss(), mint.nn.BCELoss()
        self.bce_logits, self.dropout = mint.nn.BCEWithLogitsLoss(), mint.nn.Dropout(0.5)
        self.group_norm, self.prelu = mint.nn.GroupNorm(1, 2), mint.nn.PReLU()

    def construct(self, x, p, img, labels, target, img4):
        return (self.flatten(img), self.softmax(x), self.silu(x), self.tanh(x), self.shrink(x),
                self.glu(x), self.shuffle(img4), self.smooth(x, p), self.nll(x, labels),
                self.bce(mint.sigmoid(x), target), self.bce_logits(x, target), self.dropout(x),
                self.group_norm(img), self.prelu(x))


def main():
    net = Net()
    net.set_train(False)
    p = ms.tensor(np.abs(X) + 0.5)
    img = ms.tensor((np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) % 7) / 3)
    labels = ms.tensor(np.array([0, 3, 1]))
    target = ms.tensor((X > 0.4).astype(np.float32))
    img4 = ms.tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2))
    return [out(t) for t in net(ms.tensor(X), p, img, labels, target, img4)]
''')

_program("grid_sample", '''
class Net(nn.Cell):
    def construct(self, x, grid):
        F = mint.nn.functional
        return (F.grid_sample(x, grid), F.grid_sample(x, grid, align_corners=True),
                F.grid_sample(x, grid, mode="nearest"), F.grid_sample(x, grid, padding_mode="border"))


def main():
    x = ms.tensor(np.sin(np.arange(2 * 3 * 4 * 5, dtype=np.float32)).reshape(2, 3, 4, 5))
    grid = ms.tensor(np.cos(np.arange(2 * 3 * 2 * 2, dtype=np.float32) * 0.7).reshape(2, 3, 2, 2) * 1.2)
    return [out(t) for t in Net()(x, grid)]
''')

# -- a sweep: mint calls compiled with ms.jit (so both context modes run the graph). The calls
# are those MindSpore 2.10 compiles and runs on CPU (many of its mint kernels exist for
# graph mode only on CPU); each group is one program.
SWEEP = {
    "functions_a_e": [
        "mint.abs(x)",
        "mint.add(x, p, alpha=2)",
        "mint.add(i, 2)",
        "mint.all(i)",
        "mint.all(i, 1, True)",
        "mint.amax(x, 1, True)",
        "mint.amin(x, (0, 1))",
        "mint.any(i, 0)",
        "mint.arange(1, 7, 2)",
        "mint.arange(0.5, 2.0, 0.25)",
        "mint.arctanh(u)",
        "mint.argmax(x)",
        "mint.argmax(x, 1, True)",
        "mint.atanh(u)",
        "mint.baddbmm(b, b, b, beta=0.5, alpha=2)",
        "mint.bmm(b, b)",
        "mint.broadcast_to(x[0], (2, 3, 4))",
        "mint.cat([x, p], 0)",
        "mint.cdist(x, p, 1.0)",
        "mint.ceil(x)",
        "mint.chunk(x, 2, 1)",
        "mint.clamp(x, min=-0.5)",
        "mint.clamp(x, ms.tensor(-0.5), ms.tensor(0.5))",
        "mint.concat([x, p], 1)",
        "mint.cos(x)",
        "mint.cosh(x)",
        "mint.cross(m3, m3 * 2, 1)",
        "mint.cummax(x, 1)",
        "mint.cumprod(x, 1)",
        "mint.div(x, p)",
        "mint.div(i, 3, rounding_mode='floor')",
        "mint.divide(x, 2.0)",
        "mint.dstack([x, p])",
        "mint.einsum('ij,jk->ik', x, p.T)",
        "mint.eq(x, x)",
        "mint.erf(x)",
        "mint.erfc(x)",
        "mint.erfinv(u)",
        "mint.exp(x)",
        "mint.expm1(x)",
        "mint.eye(3, 4, ms.int32)",
    ],
    "functions_f_m": [
        "mint.fix(x * 3)",
        "mint.flatten(b, 1)",
        "mint.flip(x, (1,))",
        "mint.float_power(x, p)",
        "mint.floor(x)",
        "mint.full((2, 2), 1.5, dtype=ms.float64)",
        "mint.gather(x, 0, ms.tensor(np.array([[0, 1, 2, 0]])))",
        "mint.ge(x, p)",
        "mint.greater(x, p)",
        "mint.greater_equal(x, 0)",
        "mint.gt(x, 0.1)",
        "mint.hstack([x, p])",
        "mint.isclose(x, p, 0.5, 0.5)",
        "mint.isfinite(x / 0)",
        "mint.isinf(x / 0)",
        "mint.isnan(x / 0)",
        "mint.le(x, p)",
        "mint.lerp(x, p, p)",
        "mint.less(x, 0)",
        "mint.less_equal(x, 0)",
        "mint.log(p)",
        "mint.log1p(p)",
        "mint.logical_and(x, i)",
        "mint.logical_not(i)",
        "mint.logical_or(x, i)",
        "mint.logical_xor(x, i)",
        "mint.lt(x, p)",
        "mint.matmul(b, b)",
        "mint.max(x)",
        "mint.max(x, 0)",
        "mint.maximum(x, p)",
        "mint.mean(x, 1, True)",
        "mint.mean(x, dtype=ms.float64)",
        "mint.meshgrid(x[0], p[0])",
        "mint.min(x)",
        "mint.min(x, 1, True)",
        "mint.minimum(x, p)",
        "mint.mul(x, p)",
        "mint.mul(i, 2.5)",
    ],
    "functions_n_z": [
        "mint.nan_to_num(x / 0, 1.0, 2.0, -2.0)",
        "mint.narrow(x, 0, 1, 2)",
        "mint.ne(x, p)",
        "mint.neg(x)",
        "mint.negative(i)",
        "mint.not_equal(i, 0)",
        "mint.ones((2, 3), dtype=ms.int32)",
        "mint.ones_like(x)",
        "mint.permute(b, (2, 0, 1))",
        "mint.pow(x, 2)",
        "mint.pow(2, x)",
        "mint.prod(i, 1)",
        "mint.ravel(b)",
        "mint.reciprocal(p)",
        "mint.remainder(i, 3)",
        "mint.reshape(x, (4, 3))",
        "mint.round(x * 3)",
        "mint.rsqrt(p)",
        "mint.scatter(x, 1, ms.tensor(np.array([[3], [0], [1]])), 9.0)",
        "mint.select(b, 2, 1)",
        "mint.sigmoid(x)",
        "mint.sign(x)",
        "mint.sin(x)",
        "mint.sinc(x)",
        "mint.sinh(x)",
        "mint.softmax(x, 0)",
        "mint.split(x, [1, 3], 1)",
        "mint.sqrt(p)",
        "mint.square(x)",
        "mint.squeeze(x[None, :, None], 2)",
        "mint.sub(x, p, alpha=0.5)",
        "mint.sum(x, (0, 1))",
        "mint.sum(b, dtype=ms.float64)",
        "mint.swapaxes(b, 0, 2)",
        "mint.tan(u)",
        "mint.tanh(x)",
        "mint.tile(x, (2, 1, 1))",
        "mint.transpose(b, 0, 2)",
        "mint.triu(x, 1)",
        "mint.trunc(x * 3)",
        "mint.unbind(x, 1)",
        "mint.unique_consecutive(ms.tensor(np.array([3, 3, 1, 3, 2])))",
        "mint.unsqueeze(x, -1)",
        "mint.where(x > 0, x, p)",
        "mint.xlogy(p, p)",
        "mint.zeros((3,), dtype=ms.int64)",
        "mint.zeros_like(i)",
    ],
    "special_linalg": [
        "mint.special.erfc(x)",
        "mint.special.expm1(x)",
        "mint.special.log1p(p)",
        "mint.special.log_softmax(x, 1)",
        "mint.special.round(x * 3)",
        "mint.special.sinc(x)",
    ],
    "functional": [
        "F.flatten(b)",
        "F.glu(x, 1)",
        "F.group_norm(img, 1)",
        "F.hardshrink(x, 0.3)",
        "F.hardsigmoid(x)",
        "F.hardswish(x)",
        "F.linear(x, p)",
        "F.log_softmax(x, 0)",
        "F.nll_loss(x, ms.tensor(np.array([0, 3, 1])))",
        "F.one_hot(ms.tensor(np.array([0, 3, 1])), 5)",
        "F.pad(x, (1, 1, 2, 0))",
        "F.pixel_shuffle(ms.tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)), 2)",
        "F.prelu(img, ms.tensor(np.array([0.1, 0.2], np.float32)))",
        "F.relu(x)",
        "F.sigmoid(x)",
        "F.silu(x)",
        "F.smooth_l1_loss(x, p)",
        "F.softmax(x, 1)",
        "F.softplus(x)",
        "F.softshrink(x, 0.3)",
        "F.tanh(x)",
    ],
}

_SWEEP_PROGRAM = '''
F = mint.nn.functional


def flat(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flat(item)]
    return [value]


@ms.jit
def run(x, p, u, i, m3, b, img):
    return ({calls},)


def main():
    x = ms.tensor(X)
    p = ms.tensor(np.abs(X) + np.array([0.25, 0.5, 0.75, 1.0], np.float32))
    m3 = ms.tensor(np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.5], [2.0, 0.25, 1.0]], np.float32))
    b = ms.tensor(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 10)
    img = ms.tensor((np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) % 7) / 3)
    return [out(t) for t in flat(run(x, p, x / 4, ms.tensor(I), m3, b, img))]
'''

for _group, _calls in SWEEP.items():
    _program(f"sweep_{_group}", _SWEEP_PROGRAM.replace("{calls}", ",\n            ".join(_calls)))


if __name__ == "__main__":  # re-record ms_mint_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_mint_expected.json"))
