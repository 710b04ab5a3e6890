"""Programs using the module namespaces programs import MindSpore names from:
``experimental.optim.lr_scheduler`` (every scheduler driving an ``experimental.optim.SGD``
over a few training steps: the rates set and the weights reached), ``nn.optim`` (the
optimizers under that path), ``common`` / ``common.dtype`` / ``common.tensor`` /
``common.parameter`` / ``common.api``, ``device_context.cpu`` and the primitive modules
``ops.operations.{nn_ops,array_ops,math_ops}``.

Module paths are imported as ``importlib.import_module(ms.__name__ + ".<path>")`` so one
source runs on both engines. ``EXPECTED`` (``ms_namespaces_expected.json``) holds MindSpore
2.10's answers on CPU per mode; ``python -m tests.mindspore_ref.ms_namespaces_programs``
re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
import importlib

P = ms.ops.operations


def module(path):
    return importlib.import_module(ms.__name__ + "." + path)


optim = module("experimental.optim")
lr_scheduler = module("experimental.optim.lr_scheduler")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(Tensor(np.array([[0.5, -0.3, 0.8], [0.1, 0.2, -0.6]],
                                                   np.float32)), name="weight")

    def construct(self, x):
        return ops.matmul(x, self.weight.T)


X = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0]], np.float32))
Y = Tensor(np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 0.5]], np.float32))


def train(make_scheduler, epochs=7, metric=None, make_opt=None):
    net = Net()
    opt = make_opt(net.trainable_params()) if make_opt else optim.SGD(net.trainable_params(), lr=0.1)
    scheduler = make_scheduler(opt)

    def forward(a, b):
        return ((net(a) - b) ** 2).mean()

    step = ms.value_and_grad(forward, None, opt.parameters)
    rates = []
    for epoch in range(epochs):
        loss, grads = step(X, Y)
        opt(grads)
        if metric is None:
            scheduler.step()
        else:
            scheduler.step(Tensor(np.float32(metric[epoch])))
        rates.append(scheduler.get_last_lr()[0])
    return ops.stack(rates), net.weight
'''

PROGRAMS: dict[str, str] = {}
# names MindSpore 2.10 cannot run on CPU (its error)
UNTESTABLE = {
    "nn.optim:Lamb": "RuntimeError: Kernel select failed: Unsupported op [Lamb] on CPU",
    "common:lazy_inline": "RuntimeError: CPU does not support the lazy_inline feature, please do not "
                          "mark @lazy_inline in cell's __init__ func.",
}

_SCHEDULERS = {
    "step_lr": "lr_scheduler.StepLR(o, step_size=2, gamma=0.5)",
    "multi_step_lr": "lr_scheduler.MultiStepLR(o, milestones=[1, 3, 3], gamma=0.5)",
    "constant_lr": "lr_scheduler.ConstantLR(o, factor=0.25, total_iters=3)",
    "linear_lr": "lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=4)",
    "exponential_lr": "lr_scheduler.ExponentialLR(o, gamma=0.8)",
    "polynomial_lr": "lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0)",
    "cosine_annealing_lr": "lr_scheduler.CosineAnnealingLR(o, T_max=3, eta_min=0.01)",
    "cosine_warm_restarts": "lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01)",
    "lambda_lr": "lr_scheduler.LambdaLR(o, lr_lambda=lambda e: 1.0 / (e + 1))",
    "multiplicative_lr": "lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda e: 0.9)",
    "cyclic_lr": "lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3)",
    "cyclic_lr_triangular2": "lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=1, "
                             "mode='triangular2')",
    "cyclic_lr_exp_range": "lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, "
                           "mode='exp_range', gamma=0.9)",
    "sequential_lr": "lr_scheduler.SequentialLR(o, [lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), "
                     "lr_scheduler.ExponentialLR(o, gamma=0.7)], milestones=[3])",
}
for _name, _make in _SCHEDULERS.items():
    PROGRAMS[_name] = _PRELUDE + f'''

def main():
    return train(lambda o: {_make})
'''

# the other experimental optimizers: three steps of the regression, the losses and weights
_OPTIMIZERS = {
    "adadelta": "optim.Adadelta(p, lr=0.5)",
    "adadelta_decay": "optim.Adadelta(p, lr=1.0, rho=0.8, eps=1e-4, weight_decay=0.1)",
    "adagrad": "optim.Adagrad(p, lr=0.1)",
    "adagrad_decay_init": "optim.Adagrad(p, lr=0.1, lr_decay=0.5, weight_decay=0.05, "
                          "initial_accumulator_value=0.2, eps=1e-6)",
    "adamax": "optim.Adamax(p, lr=0.05)",
    "adamax_decay": "optim.Adamax(p, lr=0.05, betas=(0.8, 0.9), eps=1e-3, weight_decay=0.1)",
    "nadam": "optim.NAdam(p, lr=0.05)",
    "nadam_decay": "optim.NAdam(p, lr=0.05, betas=(0.8, 0.95), weight_decay=0.1, momentum_decay=0.01)",
    "radam": "optim.RAdam(p, lr=0.05)",
    # rho_inf = 5.67: the rectified step from step 10 on (the program runs 12 steps)
    "radam_rectified": "optim.RAdam(p, lr=0.05, betas=(0.5, 0.7), weight_decay=0.1)",
    "rmsprop": "optim.RMSprop(p, lr=0.01)",
    "rmsprop_centered_momentum": "optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True, "
                                 "weight_decay=0.1)",
    "rprop": "optim.Rprop(p, lr=0.05)",
    "rprop_bounds": "optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.06))",
    "asgd": "optim.ASGD(p, lr=0.05)",
    "asgd_averaging": "optim.ASGD(p, lr=0.05, lambd=0.01, alpha=0.5, t0=1.0, weight_decay=0.1)",
}
for _name, _make in _OPTIMIZERS.items():
    PROGRAMS[f"optim_{_name}"] = _PRELUDE + f'''

def main():
    net = Net()
    p = net.trainable_params()
    opt = {_make}

    def forward(a, b):
        return ((net(a) - b) ** 2).mean()

    step = ms.value_and_grad(forward, None, opt.parameters)
    losses = []
    for _ in range({12 if _name == "radam_rectified" else 4}):
        loss, grads = step(X, Y)
        opt(grads)
        losses.append(loss)
    return ops.stack(losses), net.weight
'''

PROGRAMS["optimizer_with_scheduler"] = _PRELUDE + '''

def main():
    # the scheduler's rate reaches the (compiled, in graph mode) step: RMSprop under StepLR
    return train(lambda o: lr_scheduler.StepLR(o, step_size=1, gamma=0.5),
                 make_opt=lambda p: optim.RMSprop(p, lr=0.05, momentum=0.3))
'''

PROGRAMS["reduce_lr_on_plateau"] = _PRELUDE + '''

def main():
    # improves, stalls for 3 epochs (patience 1: a cut), cooldown 1, stalls again
    metric = [1.0, 0.5, 0.5, 0.6, 0.55, 0.5, 0.7]
    return train(lambda o: lr_scheduler.ReduceLROnPlateau(o, factor=0.5, patience=1, cooldown=1),
                 metric=metric)
'''

PROGRAMS["scheduler_base_and_epoch_form"] = _PRELUDE + '''

def main():
    net = Net()
    opt = optim.SGD(net.trainable_params(), lr=0.2)
    scheduler = lr_scheduler.StepLR(opt, step_size=3, gamma=0.1)
    scheduler.step(7)  # the closed form at epoch 7
    at7 = scheduler.get_last_lr()[0]
    return (at7, isinstance(scheduler, lr_scheduler.LRScheduler), isinstance(opt, optim.Optimizer),
            issubclass(lr_scheduler.CyclicLR, lr_scheduler.LRScheduler))
'''

PROGRAMS["nn_optim_path"] = _PRELUDE + '''

def main():
    nn_optim = module("nn.optim")
    out = []
    for make in (lambda p: nn_optim.ASGD(p, learning_rate=0.1),
                 lambda p: nn_optim.Adagrad(p, learning_rate=0.1),
                 lambda p: nn_optim.Rprop(p, learning_rate=0.1),
                 lambda p: nn_optim.AdaMax(p, learning_rate=0.1)):
        net = Net()
        opt = make(net.trainable_params())

        def forward(a, b):
            return ((net(a) - b) ** 2).mean()

        step = ms.value_and_grad(forward, None, opt.parameters)
        for _ in range(2):
            loss, grads = step(X, Y)
            opt(grads)
        out.append(net.weight)
    return tuple(out) + (isinstance(nn_optim.SGD(Net().trainable_params()), nn_optim.Optimizer),)
'''

PROGRAMS["common_paths"] = _PRELUDE + '''

def main():
    common = module("common")
    mstype = module("common.dtype")
    x = common.Tensor(np.array([1.5, -2.0], np.float32), mstype.float16)
    p = module("common.parameter").Parameter(module("common.tensor").Tensor(np.ones(2, np.float32)),
                                             name="p")
    y = common.from_numpy(np.array([3, 4], np.int64))

    def double(a):
        return a * 2

    jitted = module("common.api").jit(double)
    return (x, str(x.dtype) == str(common.float16), p * 2, y, jitted(common.Tensor(np.float32(1.5))),
            mstype.int32 == ms.int32, common.mutable(3) == 3, isinstance(p, common.Parameter))
'''

PROGRAMS["device_context_cpu"] = _PRELUDE + '''

def main():
    device_context = module("device_context")
    cpu = module("device_context.cpu")
    op_tuning = module("device_context.cpu.op_tuning")
    try:  # set once per process (a run before this one may have set it)
        op_tuning.threads_num(2)
    except RuntimeError:
        pass
    try:
        cpu.threads_num(3)
        again = "no error"
    except RuntimeError:
        again = "RuntimeError"
    return (cpu.is_available(), cpu.device_count(), device_context.gpu.is_available(),
            device_context.ascend.is_available(), device_context.cpu is cpu, again)
'''

PROGRAMS["primitive_module_paths"] = _PRELUDE + '''

def main():
    nn_ops = module("ops.operations.nn_ops")
    array_ops = module("ops.operations.array_ops")
    math_ops = module("ops.operations.math_ops")
    a = Tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], np.float32))
    return (nn_ops.Softmax()(a), nn_ops.ReLU6()(a * 4), nn_ops.Elu()(a), nn_ops.HSwish()(a),
            array_ops.Transpose()(a, (1, 0)), array_ops.ExpandDims()(a, 0), array_ops.Tile()(a, (1, 2)),
            math_ops.Atan2()(a, a + 2), math_ops.Erfc()(a), math_ops.Cosh()(a),
            math_ops.ReduceProd(keep_dims=True)(a, 1))
'''

PROGRAMS["initializers"] = _PRELUDE + '''

def main():
    init = module("common.initializer")
    ms.set_seed(3)
    fixed = [init.initializer(init.One(), (2, 3), ms.float32), init.initializer(init.Zero(), (2,), ms.int32),
             init.initializer(init.Constant(1.5), (3,), ms.float16), init.initializer("ones", (2, 2))]
    # random draws: their shapes, dtypes and documented bounds (the draws are each engine's own)
    bounded = []
    for make, bound in ((init.Uniform(0.2), 0.2), (init.XavierUniform(), (6 / (4 * 5 + 3 * 5)) ** 0.5),
                        (init.HeUniform(), (6 / (3 * 5)) ** 0.5), (init.TruncatedNormal(0.1), 0.2),
                        (init.Normal(0.01), 0.1), (init.XavierNormal(), 2.0), (init.HeNormal(), 3.0)):
        w = init.initializer(make, (4, 3, 5), ms.float32)
        bounded.append((tuple(w.shape), str(w.dtype), bool((w.asnumpy() ** 2).max() <= bound ** 2 + 1e-6)))
    return fixed, bounded, isinstance(init.One(), init.Initializer)
'''

PROGRAMS["common_names"] = _PRELUDE + '''

def main():
    common = module("common")
    nn_optim = module("nn.optim")
    common.set_seed(5)
    seed = common.get_seed()
    state = common.get_rng_state()
    common.set_rng_state(state)
    net = Net()
    opt = nn_optim.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)

    def forward(a, b):
        return ((net(a) - b) ** 2).mean()

    step = ms.value_and_grad(forward, None, opt.parameters)
    for _ in range(2):
        loss, grads = step(X, Y)
        opt(grads)
    config = common.JitConfig(jit_level="O0")
    return (seed, net.weight, common.is_tensor(X), common.is_tensor(3), isinstance(config, common.JitConfig),
            str(common.dtype_to_nptype(common.float32)))
'''

PROGRAMS["grad_ops_module"] = _PRELUDE + '''

def main():
    G = module("ops.operations._grad_ops")
    x = Tensor(np.array([[[[1.0, 3.0, 2.0, 0.5], [4.0, -1.0, 0.0, 2.5], [1.5, 2.0, 5.0, 1.0],
                           [0.0, 3.5, -2.0, 6.0]]]], np.float32))
    out = P.MaxPool(kernel_size=2, strides=2)(x)
    dout = Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32))
    dx = G.MaxPoolGrad(kernel_size=2, strides=2)(x, out, dout)
    a = Tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], np.float32))
    mean = a.mean(axis=1, keep_dims=True)
    var = ((a - mean) ** 2).mean(axis=1, keep_dims=True)
    dy = Tensor(np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.0]], np.float32))
    gamma = Tensor(np.array([1.0, 2.0, -1.0], np.float32))
    grads = G.LayerNormGrad(begin_norm_axis=1, begin_params_axis=1)(a, dy, var, mean, gamma)
    x1 = Tensor(np.array([-4.0, -3.0, -1.0, 0.0, 0.5, 2.0, 3.0, 4.0], np.float32))
    d1 = Tensor(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], np.float32))
    mask = Tensor(np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0], np.float32))
    elu_y = ops.elu(x1)
    return (dx, grads, G.DropoutGrad(keep_prob=0.8)(d1, mask), G.EluGrad()(d1, elu_y),
            G.HSigmoidGrad()(d1, x1), G.HSwishGrad()(d1, x1))
'''

PROGRAMS["dataset_transforms"] = _PRELUDE + '''

def main():
    vision = module("dataset.vision")
    transforms = module("dataset.transforms")
    text = module("dataset.text")
    img = (np.arange(4 * 4 * 3) * 7 % 256).astype(np.uint8).reshape(4, 4, 3)
    out = [vision.HWC2CHW()(img), vision.CenterCrop(2)(img), vision.RandomCrop(4)(img),
           vision.RandomHorizontalFlip(prob=1.0)(img), vision.Rescale(1.0 / 255, -0.5)(img),
           vision.Normalize(mean=[10.0, 20.0, 30.0], std=[2.0, 4.0, 8.0])(img),
           vision.Pad(1, fill_value=7, padding_mode=vision.Border.CONSTANT)(img),
           vision.ToTensor()(img), isinstance(vision.Inter.LINEAR, vision.Inter)]
    labels = np.array([0, 2, 1], np.int32)
    out += [transforms.OneHot(3)(labels), transforms.Fill(5)(labels),
            transforms.TypeCast(np.float32)(labels),
            transforms.Compose([transforms.TypeCast(np.int64), transforms.Fill(2)])(labels)]
    vocab = text.Vocab.from_list(["a", "b", "c"])
    out += [text.Lookup(vocab, unknown_token="a")(np.array(["c", "zz", "b"])),
            text.to_str(np.array([b"hi", b"yo"])).tolist(),
            [b.decode() for b in text.to_bytes(np.array(["hi"])).tolist()]]
    return out
'''

PROGRAMS["dtype_spellings"] = _PRELUDE + '''

def main():
    mstype = module("common.dtype")
    same = [mstype.half == mstype.float16, mstype.single == mstype.float32, mstype.double == mstype.float64,
            mstype.byte == mstype.int8, mstype.short == mstype.int16, mstype.intc == mstype.int32,
            mstype.long == mstype.int64, mstype.intp == mstype.int64, mstype.ubyte == mstype.uint8,
            mstype.ushort == mstype.uint16, mstype.uintc == mstype.uint32, mstype.uintp == mstype.uint64,
            mstype.cfloat == mstype.complex64, mstype.cdouble == mstype.complex128]
    types = (int, float, bool, complex, np.float32, np.dtype("int8"))
    named = [str(mstype.pytype_to_dtype(t)) for t in types]
    named += [str(mstype.pytype_to_dtype(mstype.int32))]
    py = [mstype.dtype_to_pytype(t).__name__ for t in (mstype.float16, mstype.bool_, mstype.complex64,
                                                       mstype.uint8, mstype.int64)]
    objs = [str(mstype.get_py_obj_dtype(v)) for v in (True, 1.5, 3, np.float16(1), int)]
    x = Tensor(np.array([1, 2], np.int32), mstype.double)
    return same, named, py, objs, x
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_namespaces_expected.json"))
