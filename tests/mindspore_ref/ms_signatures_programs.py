"""Programs that call ``ops`` functions with MindSpore 2.10's own keywords (``dim=``,
``keepdim=``, ``input=``, ``other=``...), the ones whose implementation spells its
parameters otherwise and which the spec's generated wrappers map (``framework/api_spec``):
the keyword and the position each argument takes must mean what they mean in MindSpore.
Family programs (:mod:`tests.mindspore_ref.families`): compiled as one Cell in graph mode,
with gradients where the function has them. ``ms_signatures_expected.json`` holds MindSpore
2.10's answers on CPU.
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
X = np.array([[0.3, -1.2, 2.5, 0.7], [1.9, -0.4, -2.2, 0.05], [-0.6, 1.1, 0.45, -1.7]], np.float32)
Y = np.array([[0.1, 0.4, 1.2, 0.2], [-1.0, 0.35, -0.9, 1.3], [0.8, 1.15, -0.5, 0.6]], np.float32)
P = np.array([[0.2, 0.7, 0.45, 0.9], [0.05, 0.6, 0.3, 0.85], [0.55, 0.15, 0.95, 0.4]], np.float32)
I = np.array([2, 0, 1], np.int32)
B = np.array([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
IMG = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) % 7 * 0.3 - 0.8
'''
_ARRAYS = ("X", "Y", "P", "I", "B", "IMG")
PROGRAMS: dict[str, str] = {}
# names MindSpore 2.10's CPU build cannot run (its error), tested against NumPy instead
UNTESTABLE = {"ops:scalar_to_array": "RuntimeError: prim:ScalarToArray has no attr:__infer__ "
                                     "(graph mode: Operator 'ScalarToArray' is invalid)"}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads)


_family("binary_keywords", [
    "ops.add(input=x, other=y)", "ops.sub(x, other=y)", "ops.mul(input=x, other=y)",
    "ops.maximum(x, other=y)", "ops.minimum(input=x, other=y)", "ops.pow(input=p, exponent=y)",
    "ops.equal(input=x, other=y)", "ops.greater(x, other=y)", "ops.less_equal(input=x, other=y)",
    "ops.not_equal(x, other=x)", "ops.select(condition=b, input=x, other=y)",
], [("ops.mul(input={}, other={})", ["X", "Y"]), ("ops.pow(input={}, exponent={})", ["P", "Y"]),
    ("ops.select(Tensor(B), input={}, other={})", ["X", "Y"])])

_family("unary_keywords", [
    "ops.abs(input=x)", "ops.neg(input=x)", "ops.exp(input=x)", "ops.log(input=p)",
    "ops.sigmoid(input=x)", "ops.tanh(input=x)", "ops.square(input=x)", "ops.sin(input=x)",
    "ops.cos(input=x)", "ops.hardswish(input=x)", "ops.tanhshrink(input=x)",
    "ops.softshrink(input=x, lambd=0.3)", "ops.hardshrink(x, lambd=0.5)",
    "ops.stop_gradient(value=x)",
], [("ops.sigmoid(input={}) * ops.tanh(input={})", ["X", "Y"]),
    ("ops.softshrink(input={}, lambd=0.3)", ["X"])])

_family("axis_keywords", [
    "ops.argmax(x, dim=1)", "ops.argmax(input=x, dim=0, keepdim=True)",
    "ops.sum(x, dim=1, keepdim=True)", "ops.sum(input=x, dim=0)",
    "ops.logsumexp(x, dim=1, keepdim=True)", "ops.softmax(x, axis=0)",
    "ops.log_softmax(logits=x, axis=1)", "ops.squeeze(input=ops.expand_dims(input_x=x, axis=1), axis=1)",
    "ops.swapdims(x, dim0=0, dim1=1)", "ops.transpose(input=x, dims=(1, 0))",
    "ops.tile(input=x, dims=(1, 2))", "ops.reshape(input=x, shape=(4, 3))",
    "ops.broadcast_to(input=ops.reshape(x[0], (1, 4)), shape=(2, 4))",
    "ops.gather(input_params=x, input_indices=i, axis=0)", "ops.flatten(x, start_dim=0)",
    "ops.cast(input=x, dtype=ms.float16)", "ops.eye(3)", "ops.eye(2, 3, ms.int32)",
], [("ops.logsumexp({}, dim=1, keepdim=True)", ["X"]), ("ops.softmax({}, axis=0)", ["Y"]),
    ("ops.gather(input_params={}, input_indices=Tensor(I), axis=0)", ["P"]),
    ("ops.transpose(input={}, dims=(1, 0)) * Tensor(Y).T", ["X"])])

# ops.upsample is ops.interpolate under MindSpore's other name
_family("resample_keywords", [
    "ops.upsample(img, size=(6, 7), mode='bilinear', align_corners=True)",
    "ops.upsample(input=img, size=(8, 10))", "ops.interpolate(img, size=(3, 4), mode='bilinear')",
], [("ops.upsample({}, size=(6, 7), mode='bilinear', align_corners=True)", ["IMG"])])


if __name__ == "__main__":  # re-record ms_signatures_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_signatures_expected.json"))
