"""Programs for ``mindspore.common``'s type classes and generic types (``mstype.Type``,
``Float``, ``Int``, ``TensorType``, ``float_``, ``number`` ..., the low-precision dtypes, the
``QuantDtype`` enum) and its random-number generators (``Generator``, ``manual_seed``,
``seed``, ``initial_seed``, ``default_generator``).

Module paths are imported as ``importlib.import_module(ms.__name__ + ".<path>")`` so one
source runs on both engines. ``EXPECTED`` (``ms_common_names_expected.json``) holds MindSpore
2.10's answers on CPU per mode; ``python -m tests.mindspore_ref.ms_common_names_programs``
re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
import importlib


def module(path):
    return importlib.import_module(ms.__name__ + "." + path)


common = module("common")
mstype = module("common.dtype")
'''

PROGRAMS: dict[str, str] = {}

PROGRAMS["type_classes"] = _PRELUDE + '''

def main():
    generic = [mstype.float_, mstype.int_, mstype.uint, mstype.number, mstype.list_, mstype.tuple_,
               mstype.string, mstype.type_none, mstype.tensor_type]
    names = [str(t) for t in generic]
    is_type = [isinstance(t, mstype.Type) for t in generic + [mstype.float32, mstype.bool_]]
    floats = [isinstance(t, mstype.Float) for t in (mstype.float16, mstype.float32, mstype.float64,
                                                    mstype.float_, mstype.int32, mstype.number)]
    ints = [isinstance(t, mstype.Int) for t in (mstype.int8, mstype.int64, mstype.int_, mstype.uint8,
                                                mstype.float32, mstype.bool_)]
    tensors = [isinstance(mstype.tensor_type, mstype.TensorType),
               isinstance(mstype.float32, mstype.TensorType)]
    made = [mstype.Float(32) == mstype.float32, mstype.Float(16) == mstype.float16,
            mstype.Int(8) == mstype.int8,
            mstype.Int(64) == mstype.int64, mstype.Float() == mstype.float_, mstype.Int() == mstype.int_,
            mstype.float_ == mstype.float32, mstype.int_ == mstype.int64, mstype.number == mstype.float32]
    made_names = [str(mstype.Float(64)), str(mstype.Int(16)), str(mstype.Float()), str(mstype.Int())]
    tensor_of = mstype.TensorType(mstype.float32)
    tensor_info = [str(tensor_of), str(tensor_of.element_type()),
                   tensor_of == mstype.TensorType(mstype.float32),
                   isinstance(tensor_of, mstype.Type)]
    common_same = [common.float_ == mstype.float_, common.int_ == mstype.int_, common.Type == mstype.Type,
                   common.number == mstype.number]
    return names, is_type, floats, ints, tensors, made, made_names, tensor_info, common_same
'''

PROGRAMS["low_precision_dtypes"] = _PRELUDE + '''

def main():
    types = [mstype.float8_e4m3fn, mstype.float8_e5m2, mstype.hifloat8, mstype.qint4x2]
    return ([str(t) for t in types], [isinstance(t, mstype.Float) for t in types],
            [isinstance(t, mstype.Int) for t in types], [t.itemsize for t in types[:2] + types[3:]],
            [t.is_floating_point for t in types], [common.float8_e4m3fn == mstype.float8_e4m3fn])
'''

PROGRAMS["dtype_properties"] = _PRELUDE + '''

def main():
    types = [mstype.float16, mstype.float32, mstype.int8, mstype.uint8, mstype.bool_, mstype.complex64]
    return ([t.itemsize for t in types], [t.is_floating_point for t in types], [t.is_signed for t in types],
            [t.is_complex for t in types], str(mstype.float32.to_complex()), str(mstype.float64.to_complex()),
            str(mstype.complex64.to_real()), str(mstype.complex128.to_real()))
'''

PROGRAMS["quant_dtype"] = _PRELUDE + '''

def main():
    q = mstype.QuantDtype
    return ([m.name for m in q], [m.value() for m in q], q(3).name, q(107).name, q["INT8"] == q.INT8,
            isinstance(q.INT4, q))
'''

PROGRAMS["generators"] = _PRELUDE + '''

def main():
    fresh = common.Generator()
    first = fresh.initial_seed()
    same = fresh.manual_seed(5) is fresh
    after = fresh.initial_seed()
    drawn = fresh.seed()
    drawn_ok = [isinstance(drawn, int), drawn == fresh.initial_seed(), 0 <= drawn < 2 ** 64]
    returned = common.manual_seed(3)
    default = [returned is common.default_generator, common.initial_seed(),
               isinstance(returned, common.Generator)]
    new_seed = common.seed()
    seeded = [isinstance(new_seed, int), new_seed == common.initial_seed()]
    common.manual_seed(9)
    common.set_seed(11)
    kept = [common.initial_seed(), common.get_seed()]
    return first, same, after, drawn_ok, default, seeded, kept
'''

PROGRAMS["generator_bad_seed"] = _PRELUDE + '''

def main():
    g = common.Generator()
    out = [g.manual_seed(-1).initial_seed()]
    for bad in (1.5, "3"):
        try:
            common.Generator().manual_seed(bad)
            out.append("no error")
        except Exception as error:  # noqa: BLE001
            kinds = (TypeError, ValueError, RuntimeError)
            out.append(next((k.__name__ for k in kinds if isinstance(error, k)), type(error).__name__))
    return out
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_common_names_expected.json"))
