"""``mindspore.dataset.transforms``, ``.text`` and ``.vision``: every public name called as
MindSpore 2.10 documents it, eagerly on NumPy data and inside ``map``: values, dtypes and
shapes of the results, and the kinds of errors for bad arguments.

Random operations are run where their outcome is fixed (probability 0 or 1, a range of one
value, a single choice) and otherwise compared by what does not depend on the draw (shape,
dtype, label sums); their distributions are checked in ``test_dataset_random_ops.py``.
Interpolating operations whose results MindSpore computes with OpenCV's fixed-point
arithmetic are compared as floats with a tolerance of one grey level (``*_approx``).

``ms_dataset_names_expected.json`` holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_dataset_names_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.recorded import ERROR_KIND

PROGRAMS: dict[str, str] = {}

# Present names that do not work here, and why (they raise one line saying so; each is
# checked in tests/framework/dataset/test_random_data_ops.py, not against MindSpore)
NOT_IMPLEMENTED = {
    "dataset.text:SentencePieceVocab": "trains SentencePiece models (the SentencePiece library)",
    "dataset.vision:DecodeVideo": "FFmpeg", "dataset.vision:VideoDecoder": "FFmpeg",
    "dataset.vision:read_video": "FFmpeg", "dataset.vision:read_video_timestamps": "FFmpeg",
    "dataset.transforms:Plugin": "loads C++ plugins built against MindSpore's plugin API",
}

PRELUDE = '''
import importlib
import os
import tempfile
ds = importlib.import_module(ms.__name__ + ".dataset")
transforms = importlib.import_module(ms.__name__ + ".dataset.transforms")
text = importlib.import_module(ms.__name__ + ".dataset.text")
vision = importlib.import_module(ms.__name__ + ".dataset.vision")


def picture(h=6, w=7, c=3, seed=0):
    return np.random.RandomState(seed).randint(0, 256, (h, w, c)).astype(np.uint8)


def column(d, col=0):
    return [r[col] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def as_float(a):
    return [str(a.dtype), list(a.shape), a.astype(np.float64)]


def plain(value):
    """String arrays as ["strings" or "bytes", shape, values] (the comparison reads numeric
    dtypes only)."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind == "U":
        return ["strings", list(value.shape), value.tolist()]
    if isinstance(value, np.ndarray) and value.dtype.kind == "S":
        return ["bytes", list(value.shape), np.char.decode(value, "utf-8").tolist()]
    return value


def main():
    return plain(run())
'''


def _program(name: str, body: str, errors: bool = False) -> None:
    PROGRAMS[name] = PRELUDE + (ERROR_KIND if errors else "") + body


# ---------------------------------------------------------------- transforms
_program("transforms_arrays", '''
def run():
    v = np.array([5, 6, 7, 8])
    m = np.array([[5, 1, 5], [3, 1, 9]])
    out = [transforms.Concatenate(0, np.array([1, 2]), np.array([9]))(v),
           transforms.Concatenate()(np.array(["a", "bc"])),
           transforms.Concatenate(0, np.array(["x"]))(np.array(["a"])),
           *transforms.Duplicate()(v), *transforms.Duplicate()(np.array(3.5)),
           transforms.PadEnd([6], 0)(v), transforms.PadEnd([2])(v), transforms.PadEnd([3, 4], -1)(m),
           transforms.PadEnd([4], "z")(np.array(["a", "b"])), transforms.PadEnd([3])(np.array(["a"])),
           transforms.Slice(slice(1, 3))(v), transforms.Slice([0, 2])(v), transforms.Slice(1)(v),
           transforms.Slice(None)(v), transforms.Slice(Ellipsis)(m), transforms.Slice(slice(0, 2, 2), [2,
                                                                                                       0])(m),
           transforms.Slice([-1, 0])(v), *transforms.Unique()(m), *transforms.Unique()(np.array([[2.5, 1.0],
                [2.5, 7.0]])),
           transforms.TypeCast(ms.float16)(v), transforms.Fill(7)(v), transforms.OneHot(4)(np.array([1, 3])),
           transforms.Compose([transforms.Duplicate(), transforms.Concatenate()])(np.array([1, 2]))]
    return out
''')

_program("transforms_mask", '''
def run():
    v = np.array([1, 2, 3, 4])
    R = transforms.Relational
    out = [[r.name, r.value] for r in R]
    for r in R:
        out.append(transforms.Mask(r, 2)(v))
    out += [transforms.Mask(R.GE, 2, ms.int32)(v), transforms.Mask(R.LE, 2.5, ms.float32)(v),
            transforms.Mask(R.EQ, "b")(np.array(["a", "b"])), transforms.Mask(R.NE, 1.5)(np.array([1.5,
                                                                                                   2.0])),
            transforms.Mask(R.LT, 3, ms.uint8)(np.array([[1, 5], [2, 3]]))]
    return out
''')

_program("transforms_in_map", '''
def run():
    rows = np.array([[5, 1, 5, 3], [2, 2, 8, 8]])
    d = ds.NumpySlicesDataset({"x": rows}, shuffle=False)
    d = d.map(transforms.Duplicate(), input_columns=["x"], output_columns=["x", "y"])
    d = d.map([transforms.Slice(slice(0, 3)), transforms.PadEnd([5], 9)], input_columns=["y"])
    d = d.map(transforms.Mask(transforms.Relational.GT, 4), input_columns=["x"])
    out = [[r[0], r[1]] for r in d.create_tuple_iterator(output_numpy=True)]
    e = ds.NumpySlicesDataset({"x": rows[:, None, :]}, shuffle=False)
    e = e.map(transforms.Unique(), input_columns=["x"], output_columns=["u", "i", "c"])
    out += [list(r) for r in e.create_tuple_iterator(output_numpy=True)]
    f = ds.NumpySlicesDataset({"x": rows}, shuffle=False)
    f = f.map(transforms.Concatenate(0, np.array([0]), np.array([-1, -2])), input_columns=["x"])
    out += column(f)
    return out
''')

_program("transforms_random_fixed", '''
def run():
    v = np.array([0, 0])
    f = transforms.Fill(1)
    out = [transforms.RandomApply([f, transforms.TypeCast(ms.float32)], 1.0)(v),
           transforms.RandomApply([f], 0.0)(v),
           transforms.RandomChoice([f])(v),
           transforms.RandomChoice([transforms.Fill(3), transforms.Fill(3)])(v),
           transforms.RandomOrder([transforms.TypeCast(ms.float32), transforms.TypeCast(ms.float32)])(v)]
    d = ds.NumpySlicesDataset({"x": np.arange(6).reshape(3, 2)}, shuffle=False)
    d = d.map([transforms.RandomApply([f], 1.0), transforms.RandomChoice([transforms.TypeCast(ms.int32)]),
               transforms.RandomOrder([transforms.Fill(2)])], input_columns=["x"])
    out += column(d)

    @transforms.not_random
    def double(x):
        return x * 2
    out.append(double(np.array([1, 2])))
    out.append(vision.not_random(double)(np.array([3])))
    return out
''')

_program("transforms_bad_arguments", '''
def run():
    v = np.array([1, 2, 3])
    cases = [lambda: transforms.Concatenate(0, np.array([[1]])),
             lambda: transforms.Concatenate()(np.array([[1, 2]])),
             lambda: transforms.PadEnd([2, 2])(v), lambda: transforms.PadEnd("a"),
             lambda: transforms.Mask("gt", 1), lambda: transforms.Mask(transforms.Relational.EQ, [1]),
             lambda: transforms.Slice(1.5), lambda: transforms.Slice(5)(v), lambda: transforms.Slice(1, 1)(v),
             lambda: transforms.RandomApply([], 0.5), lambda: transforms.RandomApply([transforms.Fill(1)],
                                                                                     1.5),
             lambda: transforms.RandomChoice(transforms.Fill(1)), lambda: transforms.RandomOrder("x"),
             lambda: transforms.Plugin(1, "f"), lambda: transforms.Plugin("/no/such/lib.so", "f")(v)]
    return [kind(case) for case in cases]
''', errors=True)

# ---------------------------------------------------------------- text
_program("text_string_ops", '''
def run():
    words = np.array(["Hello", "WORLD", "Straße", "ǅemal"])
    out = [text.CaseFold()(words), text.CaseFold()("Welcome To BEiJing"),
           [[f.name, f.value] for f in text.NormalizeForm]]
    for form in text.NormalizeForm:
        out.append(text.NormalizeUTF8(form)(np.array(["ﬁ ½ Å", "e\\u0301", "Ａ１"])))
    out += [text.NormalizeUTF8()("①②"),
            text.RegexReplace("\\\\s+", "_")("a  b c"), text.RegexReplace("\\\\s+",
                                                                          "_")(np.array([" x  y "])),
            text.RegexReplace("a", "X", False)("banana"),
            text.RegexReplace("(\\\\w+)@(\\\\w+)", "$2 at $1")("me@home you@work"),
            text.FilterWikipediaXML()(
                np.array(["Welcome to [[Beijing|the city]] {{tpl}} <b>x</b> &amp; 123 a%20b"])),
            text.FilterWikipediaXML()("x<ref name=a>cite</ref>y ''bold'' Ünïcode  "),
                text.FilterWikipediaXML()("ÀÉ"),
            text.FilterWikipediaXML()("A_b-C.d 90"),
            text.AddToken("[CLS]", True)(np.array(["a", "b"])), text.AddToken("END", False)(np.array(["a"])),
            text.Truncate(2)(np.array([1, 2, 3])), text.Truncate(3)(np.array([["a", "b", "c", "d"]])),
            text.Truncate(5)(np.array([1.5, 2.5])),
            *text.TruncateSequencePair(4)(np.array([1, 2, 3]), np.array([4, 5, 6, 7])),
            *text.TruncateSequencePair(5)(np.array(["a", "b", "c", "d"]), np.array(["e"])),
            *text.TruncateSequencePair(9)(np.array([1]), np.array([2, 3])),
            text.Ngram(2)(np.array(["a", "b", "c", "d"])),
            text.Ngram([1, 3], ("_", 1), ("_", 1), "-")(np.array(["a", "b", "c"])),
            text.Ngram(4)(np.array(["a", "b"])), text.Ngram([2], ("<", 3), ("", 0))(np.array(["x", "y"])),
            text.SlidingWindow(2)(np.array([1, 2, 3, 4])), text.SlidingWindow(3, -1)(np.array(["a", "b", "c",
                                                                                               "d"])),
            text.SlidingWindow(5)(np.array([1, 2, 3, 4]))]
    return out
''')

_VOCAB = '''
    vocab = text.Vocab.from_list(["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "my", "favor", "##ite",
                                  "book",
                                  "is", "love", "dur", "##ian", "够", "了", "un", "##want", "##ed", ",",
                                  "runn",
                                  "##ing"])
'''

_program("text_tokenizers", '''
def run():
''' + _VOCAB + '''
    s = "Welcome to 北京, 2024!  αβγ naïve"
    out = []
    for with_offsets in (False, True):
        out += [text.RegexTokenizer("\\\\s+", with_offsets=with_offsets)(s),
                text.RegexTokenizer("\\\\s+", "\\\\s+", with_offsets)(s),
                text.RegexTokenizer("[,.!]", "[,]", with_offsets)("a,b.c!d,"),
                text.UnicodeScriptTokenizer(with_offsets=with_offsets)(s),
                text.UnicodeScriptTokenizer(True, with_offsets)("ab cd!!12 Привет мир"),
                text.WordpieceTokenizer(vocab, with_offsets=with_offsets)(np.array(["my", "favorite",
                                                                                    "durian",
                                                                                   "xyz", "unwanted"])),
                text.BertTokenizer(vocab, with_offsets=with_offsets)("my favorite book is durian 够了"),
                text.BertTokenizer(vocab, lower_case=True,
                                   with_offsets=with_offsets)("My Favorite BOOK, is Durian!"),
                text.BertTokenizer(vocab, with_offsets=with_offsets)("[CLS] unwanted running [SEP]"),
                text.BasicTokenizer(with_offsets=with_offsets)("Hello, World! 你好 [CLS]"),
                text.BasicTokenizer(lower_case=True, with_offsets=with_offsets)("Héllo WORLD, ÀÉ naïve!"),
                text.BasicTokenizer(with_offsets=with_offsets)("[MASK] x [unused1] [mask]"),
                text.BasicTokenizer(keep_whitespace=True, with_offsets=with_offsets)("a b  c,d")]
    out += [text.WordpieceTokenizer(vocab, unknown_token="")(np.array(["favorite", "xyz"])),
            text.WordpieceTokenizer(vocab, "##", 5)(np.array(["favorite", "my"])),
            text.WordpieceTokenizer(vocab, suffix_indicator="@@")(np.array(["favorite"])),
            text.BertTokenizer(vocab, unknown_token="<unk>")("xyz my"),
            text.BasicTokenizer(lower_case=True, preserve_unused_token=False)("[CLS] Ab"),
            text.BasicTokenizer(normalization_form=text.NormalizeForm.NFKC)("ﬁne ①"),
            text.PythonTokenizer(lambda t: t.split(","))(np.array("a,b,,c")),
            text.UnicodeCharTokenizer()("añ北"), text.UnicodeCharTokenizer(True)("añ北"),
            text.WhitespaceTokenizer(True)("  a  bc ")]
    return out
''')

_program("text_in_map", '''
def run():
''' + _VOCAB + '''
    d = ds.NumpySlicesDataset({"t": np.array(["my favorite book", "unwanted durian ,", "is love"])},
                              shuffle=False)
    d = d.map(text.BertTokenizer(vocab), input_columns=["t"])
    d = d.map([text.AddToken("[CLS]"), text.AddToken("[SEP]", False), text.Lookup(vocab, "[UNK]"),
               text.Truncate(5)], input_columns=["t"])
    out = column(d)
    e = ds.NumpySlicesDataset({"t": np.array(["a b c d", "e f"])}, shuffle=False)
    e = e.map([text.WhitespaceTokenizer(), text.Ngram(2), text.CaseFold()], input_columns=["t"])
    out += column(e)
    f = ds.NumpySlicesDataset({"a": np.array([[1, 2, 3]]), "b": np.array([[4, 5]])}, shuffle=False)
    f = f.map(text.TruncateSequencePair(3), input_columns=["a", "b"])
    out += [list(r) for r in f.create_tuple_iterator(output_numpy=True)]
    g = ds.NumpySlicesDataset({"t": np.array(["a,b", "c"])}, shuffle=False)
    g = g.map(text.PythonTokenizer(lambda t: t.split(",")), input_columns=["t"])
    out += column(g)
    return out
''')

_program("text_vocab_and_vectors", '''
def run():
    folder = tempfile.mkdtemp()
    def write(name, content):
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content)
        return path
    vocab_file = write("vocab.txt", "apple,1\\nbanana\\ncherry x\\n\\ndate\\n")
    out = [sorted(text.Vocab.from_file(vocab_file).vocab().items()),
           sorted(text.Vocab.from_file(vocab_file, ",", 2, ["<pad>"], False).vocab().items()),
           sorted(text.Vocab.from_file(vocab_file, " ", None, ["<unk>"], True).vocab().items())]
    d = ds.NumpySlicesDataset({"t": np.array(["q b a c", "a b", "a d e", "z c"])}, shuffle=False)
    d = d.map(text.WhitespaceTokenizer(), input_columns=["t"])
    out += [sorted(text.Vocab.from_dataset(d, "t").vocab().items()),
            sorted(text.Vocab.from_dataset(d, ["t"], (2, None), None, ["<unk>"]).vocab().items()),
            sorted(text.Vocab.from_dataset(d, None, None, 3, ["<unk>", "<pad>"], False).vocab().items()),
            sorted(text.Vocab.from_dataset(d, None, (1, 1)).vocab().items())]
    v = text.Vocab.from_list(["a", "b"], ["<s>"])
    out += [v.tokens_to_ids(["a", "x", "<s>"]), v.tokens_to_ids("b"), v.ids_to_tokens([0, 2, 9]),
            v.ids_to_tokens(1),
            sorted(text.Vocab.from_dict({"x": 3, "y": 0}).vocab().items())]
    vec = write("vectors.txt", "ok 0.1 0.2 0.3\\nhello 1 2 3\\nHI -1 -2 -3\\n")
    fast = write("wiki.vec", "3 3\\nok 0.1 0.2 0.3\\nhello 1 2 3\\nHI -1 -2 -3\\n")
    glove = write("glove.6B.3d.txt", "ok 0.1 0.2 0.3\\nhello 1 2 3\\nHI -1 -2 -3\\n")
    grams = write("charngram.txt", "1gram-a 0.1 0.2\\n2gram-#BEGIN#a 0.3 0.4\\n2gram-ab 0.5 0.6\\n"
                  "3gram-abc 1 1\\n4gram-#BEGIN#ab#END# 2 2\\n2gram-b#END# 0.25 0.25\\n")
    tokens = np.array(["ok", "hello", "nope", "hi", "HI"])
    vectors = text.Vectors.from_file(vec)
    out += [text.ToVectors(vectors)(tokens), text.ToVectors(vectors, [9, 9, 9], True)(tokens),
            text.ToVectors(vectors)("hello"),
            text.ToVectors(text.Vectors.from_file(vec, max_vectors=1))(np.array(["ok", "hello"])),
            text.ToVectors(text.FastText.from_file(fast))(tokens),
                text.ToVectors(text.GloVe.from_file(glove))(tokens),
            text.ToVectors(text.Vectors.from_file(fast))(tokens),
            text.ToVectors(text.CharNGram.from_file(grams))(np.array(["ab", "a", "zz", "AB"])),
            text.ToVectors(text.CharNGram.from_file(grams), lower_case_backup=True)(np.array(["AB"]))]
    return out
''')

_program("text_model_tokenizer_options", '''
def run():
    return [[[m.name, m.value] for m in e] for e in (text.JiebaMode, text.SentencePieceModel,
                                                     text.SPieceTokenizerLoadType,
                                                         text.SPieceTokenizerOutType)]
''')

_JIEBA_FILES = '''
    folder = tempfile.mkdtemp()
    hmm, mp = os.path.join(folder, "hmm.utf8"), os.path.join(folder, "dict.utf8")
    emits = {"B": "北:-5.1,京:-7.2,大:-4.1,学:-6.3,我:-6.0,来:-6.5,"
                  "到:-6.1,清:-5.9,华:-6.2,天:-5.0,安:-6.4,门:-7.1",
             "E": "北:-7.3,京:-4.9,大:-6.6,学:-4.2,我:-7.0,来:-5.1,"
                  "到:-5.5,清:-7.7,华:-4.8,天:-6.0,安:-5.2,门:-4.5",
             "M": "北:-6.6,京:-6.1,大:-5.3,学:-5.9,我:-8.0,来:-6.8,"
                  "到:-7.2,清:-6.9,华:-6.0,天:-6.3,安:-6.6,门:-6.2",
             "S": "北:-6.9,京:-7.5,大:-5.5,学:-7.2,我:-3.2,来:-4.4,"
                  "到:-4.3,清:-8.1,华:-8.3,天:-6.1,安:-7.0,门:-6.6"}
    with open(hmm, "w", encoding="utf-8") as f:
        f.write("# start B E M S\\n-0.26 -3.14e+100 -3.14e+100 -1.46\\n# transitions\\n"
                "-3.14e+100 -0.51 -0.91 -3.14e+100\\n-0.59 -3.14e+100 -3.14e+100 -0.81\\n"
                "-3.14e+100 -0.33 -1.26 -3.14e+100\\n-0.72 -3.14e+100 -3.14e+100 -0.66\\n"
                + "".join(f"# emit {k}\\n{v}\\n" for k, v in emits.items()))
    with open(mp, "w", encoding="utf-8") as f:
        f.write("北京 300 ns\\n北京大学 20 nt\\n大学 250 n\\n我 900 r\\n来到 120 v\\n来 400 v\\n到 380 v\\n"
                "清华 50 nz\\n清华大学 40 nt\\n华 30 n\\n天安门 80 ns\\n天 200 n\\n")
'''

_program("text_jieba", '''
def run():
''' + _JIEBA_FILES + '''
    texts = ["我来到北京清华大学", "我来到天安门 abc12 3.5!北京大学门", "天安北华京",
             "北京，清华。大学\\t天安", ""]
    out = [[[m.name, m.value] for m in text.JiebaMode]]
    for mode in (text.JiebaMode.MP, text.JiebaMode.HMM, text.JiebaMode.MIX):
        for with_offsets in (False, True):
            tokenizer = text.JiebaTokenizer(hmm, mp, mode, with_offsets)
            out += [tokenizer(t) for t in texts]
    tokenizer = text.JiebaTokenizer(hmm, mp)
    tokenizer.add_word("安北")
    tokenizer.add_word("华京", 5)
    tokenizer.add_word("门")
    out += [tokenizer(t) for t in texts]
    user = os.path.join(folder, "user.txt")
    with open(user, "w", encoding="utf-8") as f:
        f.write("到北 9\\n学门\\n")
    tokenizer.add_dict(user)
    tokenizer.add_dict({"京清": 3000})
    out += [tokenizer(t) for t in texts]
    d = ds.NumpySlicesDataset({"t": np.array(texts[:3])}, shuffle=False)
    out += column(d.map(text.JiebaTokenizer(hmm, mp, text.JiebaMode.MP), input_columns=["t"]))
    return out
''')

_program("text_sentencepiece", '''
import struct


def proto(number, wire, payload):
    """One protobuf field (varint, 32-bit float or length-delimited)."""
    def varint(n):
        out = b""
        while True:
            low, n = n & 0x7F, n >> 7
            if not n:
                return out + bytes([low])
            out += bytes([low | 0x80])
    key = varint((number << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 5:
        return key + struct.pack("<f", payload)
    return key + varint(len(payload)) + payload


def run():
    # a unigram model with identity normalization, written field by field
    pieces = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3), ("\u2581", -2.0, 1),
              ("\u2581he", -3.0, 1), ("llo", -3.5, 1), ("\u2581hello", -4.0, 1), ("\u2581wor", -4.5, 1),
              ("ld", -4.2, 1), ("h", -5.0, 1), ("e", -5.0, 1), ("l", -5.0, 1), ("o", -5.0, 1), ("w", -5.0, 1),
              ("r", -5.0, 1), ("d", -5.0, 1), ("\u2581w", -4.0, 1), ("or", -4.1, 1),
              ("\u2581\u5317\u4eac", -3.0, 1)]
    model = b"".join(proto(1, 2, proto(1, 2, p.encode()) + proto(2, 5, s) + proto(3, 0, t))
                     for p, s, t in pieces)
    model += proto(2, 2, proto(3, 0, 1) + proto(4, 0, len(pieces)))
    model += proto(3, 2, proto(1, 2, b"identity"))
    path = os.path.join(tempfile.mkdtemp(), "m.model")
    with open(path, "wb") as f:
        f.write(model)
    texts = ["hello world", "  hello   worldx", "helloworld", "xyz hello", "qq", "", "北京 hello"]
    out = [[[m.name, m.value] for m in e] for e in (text.SentencePieceModel, text.SPieceTokenizerOutType,
                                                     text.SPieceTokenizerLoadType)]
    for kind in (text.SPieceTokenizerOutType.STRING, text.SPieceTokenizerOutType.INT):
        tokenizer = text.SentencePieceTokenizer(path, kind)
        out += [tokenizer(t) for t in texts] + [tokenizer(np.array("hello"))]
    d = ds.NumpySlicesDataset({"t": np.array(texts[:3])}, shuffle=False)
    ints = text.SentencePieceTokenizer(path, text.SPieceTokenizerOutType.INT)
    out += column(d.map(ints, input_columns=["t"]))
    return out
''')

_program("text_bad_arguments", '''
def run():
    vocab = text.Vocab.from_list(["a"])
    cases = [lambda: text.Ngram(0), lambda: text.Ngram(2, ("x", -1)), lambda: text.SlidingWindow(0),
             lambda: text.SlidingWindow(2)(np.array([[1, 2], [3, 4]])), lambda: text.Truncate(0),
             lambda: text.TruncateSequencePair(-1), lambda: text.AddToken(1),
             lambda: text.RegexReplace(1, "a"),
             lambda: text.NormalizeUTF8("NFC"), lambda: text.WordpieceTokenizer(["a"]),
             lambda: text.WordpieceTokenizer(vocab, max_bytes_per_token=-1),
                 lambda: text.BertTokenizer(vocab, lower_case=1),
             lambda: text.ToVectors("v"), lambda: text.Vectors.from_file("/no/such/file.txt"),
             lambda: text.FastText.from_file("/no/such/file.txt"), lambda: text.PythonTokenizer(1),
             lambda: text.PythonTokenizer(str.split)("a b"), lambda: text.CaseFold()(np.array([1, 2]))]
    return [kind(case) for case in cases]
''', errors=True)

# ---------------------------------------------------------------- vision
_program("first_names", '''
def run():
    img = picture(4, 5)
    out = [vision.Rescale(1 / 255, -0.5)(img), vision.Normalize([100, 110, 120], [50, 60, 70])(img),
           vision.Normalize([1, 2, 3], [2, 2, 2], False)(np.ascontiguousarray(img.transpose(2, 0, 1))),
           vision.HWC2CHW()(img), vision.ToTensor()(img), vision.ToTensor(np.float16)(img),
           vision.Pad(1)(img), vision.Pad([1, 2], 7)(img),
           vision.Pad([1, 0, 2, 1], 0, vision.Border.REFLECT)(img),
           vision.Pad(2, 0, vision.Border.SYMMETRIC)(img), vision.Pad(1, 0, vision.Border.EDGE)(img),
           vision.CenterCrop(2)(img), vision.CenterCrop((3, 4))(img), vision.CenterCrop((6, 7))(img),
           vision.RandomCrop((4, 5))(img), vision.RandomCrop((6, 7), 1)(img),
           vision.RandomHorizontalFlip(0.0)(img), vision.Resize((4, 5), vision.Inter.NEAREST)(img),
           text.ToNumber(ms.int32)(np.array(["12", "-3"])),
           text.ToNumber(ms.float32)(np.array([["1.5"], ["2e3"]])),
           text.to_str(np.array([b"ab", "\u00e9".encode()])), text.to_bytes(np.array(["ab", "\u00e9"])),
           [[m.name, m.value] for m in vision.Border]]
    return out
''')

_program("vision_color", '''
def run():
    img = picture(6, 7)
    out = []
    for f in (0.0, 0.5, 1.5, 3.0):
        out += [vision.AdjustBrightness(f)(img), vision.AdjustContrast(f)(img),
                vision.AdjustSaturation(f)(img),
                vision.AdjustSharpness(f)(img)]
    out += [vision.Invert()(img), vision.Posterize(3)(img), vision.Posterize(0)(img),
            vision.Posterize(8)(img),
            vision.Solarize(100)(img), vision.Solarize((50, 150))(img), vision.Solarize(255.0)(img),
            vision.AutoContrast()(img), vision.AutoContrast(10.0)(img), vision.AutoContrast(0.0, [0,
                                                                                                  255])(img),
            vision.AutoContrast()(picture(5, 5, 1)[:, :, 0]), vision.Equalize()(img),
                vision.Equalize()(picture(9, 9, 1)),
            vision.ToType(np.float32)(img), vision.ToType(ms.int16)(img),
            vision.LinearTransformation(np.eye(12, dtype=np.float32) * 2, np.ones(12, np.float32))(
                np.arange(12, dtype=np.float32).reshape(2, 2, 3))]
    return out
''')

_program("vision_color_conversions", '''
def run():
    img = picture(4, 5)
    rgba = picture(4, 5, 4, seed=3)
    M = vision.ConvertMode
    out = [[m.name, m.value] for m in M]
    for mode, source in ((M.COLOR_BGR2BGRA, img), (M.COLOR_BGRA2BGR, rgba), (M.COLOR_BGR2RGBA, img),
                         (M.COLOR_RGBA2BGR, rgba), (M.COLOR_BGR2RGB, img), (M.COLOR_BGRA2RGBA, rgba),
                         (M.COLOR_GRAY2BGR, img[:, :, :1]), (M.COLOR_GRAY2BGRA, img[:, :, :1]),
                         (M.COLOR_BGRA2BGR, img)):
        out.append(vision.ConvertColor(mode)(source))
    for mode, source in ((M.COLOR_BGR2GRAY, img), (M.COLOR_RGB2GRAY, img), (M.COLOR_BGRA2GRAY, rgba),
                         (M.COLOR_RGBA2GRAY, rgba), (M.COLOR_RGBA2GRAY, img), (M.COLOR_BGR2GRAY, rgba)):
        out.append(as_float(vision.ConvertColor(mode)(source)))
    f = img.astype(np.float32) / 255
    hsv = vision.RgbToHsv(True)(f)
    out += [hsv, vision.HsvToRgb(True)(hsv), vision.RgbToHsv()(np.ascontiguousarray(f.transpose(2, 0, 1))),
            vision.HsvToRgb()(np.ascontiguousarray(hsv.transpose(2, 0, 1))), vision.RgbToHsv(True)(img)]
    return out
''')

_program("vision_color_approx", '''
def run():
    img = picture(6, 7)
    gray = np.repeat(picture(3, 3, 1), 3, axis=2)
    return [as_float(vision.AdjustGamma(0.5, 1.2)(img)), as_float(vision.AdjustGamma(2.0)(img)),
            as_float(vision.AdjustGamma(1.0, 1.2)(img)), as_float(vision.AdjustGamma(0.5,
                1.2)(img.astype(np.float32) / 255)),
            as_float(vision.AdjustGamma(2.0, 0.8)(img.astype(np.float32) / 255))]

''')

_program("vision_hue_approx", '''
def run():
    img = picture(6, 7)
    gray = np.repeat(picture(3, 3, 1), 3, axis=2)
    return [as_float(vision.AdjustHue(h)(img)) for h in (-0.5, -0.2, 0.0, 0.1, 0.5)] + [
        as_float(vision.AdjustHue(0.3)(gray))]
''')

_program("vision_geometry", '''
def run():
    img = picture(4, 5)
    out = [vision.HorizontalFlip()(img), vision.VerticalFlip()(img), vision.HorizontalFlip()(img[:, :, 0]),
           vision.Crop((1, 2), (2, 3))(img), vision.Crop((0, 0), 2)(img),
           vision.PadToSize((6, 7))(img), vision.PadToSize(8, (1, 2), 9)(img),
           vision.PadToSize((5, 6), None, 0, vision.Border.EDGE)(img),
           vision.PadToSize((6, 9), (2, 3), 0, vision.Border.REFLECT)(img),
           vision.Erase(1, 1, 2, 2, 5)(img), vision.Erase(0, 2, 3, 2, (1, 2, 3))(img),
           vision.Erase(1, 0, 1, 5, 0.5)(img.astype(np.float32)),
           *vision.SlicePatches(2, 2)(img), *vision.SlicePatches(3, 2, vision.SliceMode.DROP)(img),
           *vision.SlicePatches(3, 2, vision.SliceMode.PAD, 7)(img),
           [[m.name, m.value] for m in vision.SliceMode], [[m.name, m.value] for m in vision.Inter],
           vision.NormalizePad([1, 2, 3], [1, 1, 1], is_hwc=False)(np.ascontiguousarray(img.transpose(2, 0,
                                                                                                      1))),
           vision.NormalizePad([1, 2, 3], [1, 2, 4], "float16", False)(np.ascontiguousarray(img.transpose(2,
                0, 1))),
           vision.Resize((3, 7), vision.Inter.NEAREST)(img), vision.Resize((8, 3), vision.Inter.NEAREST)(img),
           vision.Resize(6, vision.Inter.NEAREST)(img), vision.ResizedCrop(0, 1, 3, 3, (6, 5),
                                                                           vision.Inter.NEAREST)(img)]
    return out
''')

_program("vision_warps", '''
def run():
    img = picture(5, 6)
    out = [vision.Rotate(90)(img), vision.Rotate(-90)(img), vision.Rotate(180)(img), vision.Rotate(30)(img),
           vision.Rotate(30, center=(0, 0))(img), vision.Rotate(45, expand=True)(img), vision.Rotate(30,
                fill_value=7)(img),
           vision.Rotate(30, fill_value=(1, 2, 3))(img),
           vision.Affine(0, [0, 0], 1.0, [0, 0])(img), vision.Affine(0, [0.5, -0.4], 1.0, [0, 0])(img),
           vision.Affine(0, [0.2, 0.2], 1.0, [0, 0])(img), vision.Affine(0, [0, 0], 1.0, [20, 0])(img),
           vision.Affine(0, [0, 0], 1.0, [0, 20])(img), vision.Affine(0, [0, 0], 1.5, 0)(img),
           vision.Affine(90, [0, 0], 1.0, [0, 0])(img), vision.Affine(20, [0.1, 0], 1.2, [10, 5])(img),
           vision.Affine(0, [0, 0], 1.0, 15, fill_value=200)(img),
           vision.Perspective([[0, 0], [5, 0], [5, 4], [0, 4]], [[0, 0], [5, 0], [5, 4], [0, 4]],
                              vision.Inter.NEAREST)(img),
           vision.Perspective([[0, 0], [5, 0], [5, 4], [0, 4]], [[1, 0], [5, 0], [5, 4], [0, 3]],
                              vision.Inter.NEAREST)(img)]
    return out
''')

_program("vision_warps_approx", '''
def run():
    img = picture(5, 6)
    out = [vision.Rotate(30, vision.Inter.BILINEAR)(img), vision.Affine(20, [0.1, 0], 1.2, [10, 5],
                                                                        vision.Inter.BILINEAR)(img),
           vision.Perspective([[0, 0], [5, 0], [5, 4], [0, 4]], [[1, 0], [5, 0], [5, 4], [0, 3]])(img),
           vision.Resize((3, 7), vision.Inter.BICUBIC)(img), vision.Resize((9, 11),
                                                                           vision.Inter.BICUBIC)(img),
           vision.Resize((10, 12))(img), vision.Resize((3, 4))(img), vision.ResizedCrop(1, 0, 2, 4, 4)(img),
           vision.GaussianBlur(3, 1.0)(img), vision.GaussianBlur((3, 5))(img), vision.GaussianBlur(5, (0.8,
                1.5))(img),
           vision.GaussianBlur(3, 2.0)(img.astype(np.float32))]
    return [as_float(o) for o in out]
''')

_program("vision_pil_and_files", '''
def run():
    img = picture(4, 5)
    pil = vision.ToPIL()(img)
    folder = tempfile.mkdtemp()
    png = os.path.join(folder, "a.png")
    vision.write_png(png, img)
    vision.write_file(os.path.join(folder, "b.bin"), np.array([1, 2, 3], np.uint8))
    out = [vision.ToNumpy()(pil), pil.size, pil.mode, np.asarray(vision.Grayscale()(pil)),
           np.asarray(vision.Grayscale(3)(pil)), [np.asarray(c) for c in vision.FiveCrop(2)(pil)],
           [np.asarray(c) for c in vision.FiveCrop((3, 2))(pil)],
               [np.asarray(c) for c in vision.TenCrop(2)(pil)],
           [np.asarray(c) for c in vision.TenCrop(2, True)(pil)],
           vision.get_image_size(img), vision.get_image_num_channels(img), vision.get_image_size(img[:, :,
                                                                                                     0]),
           vision.get_image_num_channels(img[:, :, 0]), vision.get_image_size(pil),
               vision.get_image_num_channels(pil),
           vision.Decode()(vision.encode_png(img)), vision.Decode()(vision.encode_png(img[:, :, 0])),
           vision.Decode()(vision.encode_png(img, 9)), vision.encode_png(img)[:8],
               str(vision.encode_jpeg(img).dtype),
           vision.encode_jpeg(img)[:4], vision.read_file(os.path.join(folder, "b.bin")),
           vision.read_image(png), vision.read_image(png, vision.ImageReadMode.COLOR),
           vision.read_image(png, vision.ImageReadMode.GRAYSCALE),
               np.asarray(vision.Decode(True)(vision.encode_png(img))),
           [[m.name, m.value] for m in vision.ImageReadMode]]
    return out
''')

_program("vision_jpeg_approx", '''
def run():
    img = picture(8, 8)
    folder = tempfile.mkdtemp()
    jpg = os.path.join(folder, "a.jpg")
    vision.write_jpeg(jpg, img, 90)
    return [as_float(vision.Decode()(vision.encode_jpeg(img, 95))), as_float(vision.read_image(jpg)),
            as_float(vision.Decode()(vision.read_file(jpg)))]
''')

_program("vision_bboxes", '''
def run():
    img = picture(4, 6)
    def box():  # MindSpore's eager calls may write into the array they are given
        return np.array([[1, 0, 2, 3, 7]], np.float32)
    out = [*vision.ResizeWithBBox((8, 3), vision.Inter.NEAREST)(img, np.array([[1, 0, 2, 3], [0, 1, 4, 2]],
                                                                              np.float32)),
           *vision.ResizeWithBBox(8, vision.Inter.NEAREST)(img, box()),
           *vision.RandomHorizontalFlipWithBBox(1.0)(img, box()),
               *vision.RandomHorizontalFlipWithBBox(0.0)(img, box()),
           *vision.RandomVerticalFlipWithBBox(1.0)(img, box()), *vision.RandomCropWithBBox((4, 6))(img,
                                                                                                   box()),
           *vision.BoundingBoxAugment(vision.Invert(), 1.0)(img, box()),
           *vision.BoundingBoxAugment(vision.Invert(), 0.0)(img, box())]
    a, b = vision.RandomResizeWithBBox((8, 12))(img, box())
    c, d = vision.RandomResizedCropWithBBox((5, 5), (1.0, 1.0), (1.5, 1.5))(img, box())
    return out + [a.shape, b, c.shape, d.shape]
''')

_program("vision_random_fixed", '''
def run():
    img = picture(6, 7)
    out = [vision.RandomVerticalFlip(1.0)(img), vision.RandomVerticalFlip(0.0)(img),
           vision.RandomHorizontalFlip(1.0)(img),
           vision.RandomInvert(1.0)(img), vision.RandomInvert(0.0)(img), vision.RandomEqualize(1.0)(img),
           vision.RandomAutoContrast(prob=1.0)(img), vision.RandomAutoContrast(5.0, None, 1.0)(img),
           vision.RandomAdjustSharpness(2.0, 1.0)(img), vision.RandomAdjustSharpness(2.0, 0.0)(img),
           vision.RandomColor((1.5, 1.5))(img), vision.RandomSharpness((0.5, 0.5))(img),
           vision.RandomPosterize((3, 3))(img), vision.RandomPosterize(8)(img),
           vision.RandomColorAdjust(brightness=(1.5, 1.5))(img), vision.RandomColorAdjust(contrast=(0.5,
                0.5))(img),
           vision.RandomColorAdjust(saturation=(2.0, 2.0))(img), vision.RandomColorAdjust()(img),
           vision.RandomRotation((30, 30))(img), vision.RandomRotation((90, 90), expand=True)(img),
           vision.RandomAffine((20, 20))(img), vision.RandomAffine(0, scale=(1.2, 1.2))(img),
           vision.RandomResizedCrop((3, 4), (1.0, 1.0), (7 / 6, 7 / 6), vision.Inter.NEAREST)(img),
           vision.RandomLighting(0.0)(img), np.asarray(vision.RandomPerspective(0.5,
                                                                                0.0)(vision.ToPIL()(img))),
           vision.RandomErasing(0.0)(np.ascontiguousarray(img.transpose(2, 0, 1)).astype(np.float32)),
           vision.RandomCropDecodeResize((3, 4), (1.0, 1.0), (7 / 6, 7 / 6),
                                         vision.Inter.NEAREST)(vision.encode_png(img)),
           vision.UniformAugment([vision.Invert()], 1)(img).shape,
           vision.RandomSelectSubpolicy([[(vision.Invert(), 1.0), (vision.Posterize(2), 1.0)]])(img),
           vision.RandomSelectSubpolicy([[(vision.Invert(), 0.0)]])(img),
           np.asarray(vision.RandomGrayscale(1.0)(vision.ToPIL()(img))),
           np.asarray(vision.RandomGrayscale(0.0)(vision.ToPIL()(img)))]
    for op in (vision.RandomResize((5, 8)), vision.CutOut(2), vision.CutOut(3, 2, False),
               vision.RandomSolarize(),
               vision.RandomLighting(), vision.RandomRotation(40),
               vision.AutoAugment(), vision.AutoAugment(vision.AutoAugmentPolicy.CIFAR10),
               vision.AutoAugment(vision.AutoAugmentPolicy.SVHN, vision.Inter.BILINEAR, 3),
               vision.RandAugment(), vision.RandAugment(3, 20, 31, vision.Inter.BILINEAR),
               vision.TrivialAugmentWide(), vision.UniformAugment([vision.Invert(), vision.Equalize()]),
               vision.RandomResizedCrop(4), vision.RandomAffine(10, (-0.1, 0.1), (0.9, 1.1), 5)):
        r = op(img)
        out.append([str(r.dtype), list(r.shape)])
    r = np.asarray(vision.RandomPerspective(0.5, 1.0)(vision.ToPIL()(img)))
    out.append([str(r.dtype), list(r.shape)])
    out.append([[m.name, m.value] for m in vision.AutoAugmentPolicy])
    return out
''')

_program("vision_batches", '''
def run():
    imgs = np.random.RandomState(1).randint(0, 256, (4, 3, 3, 3)).astype(np.uint8)
    labels = np.eye(4, dtype=np.float32)
    out = [[[m.name, m.value] for m in vision.ImageBatchFormat]]
    for op in (vision.MixUpBatch(), vision.MixUpBatch(0.5), vision.CutMixBatch(vision.ImageBatchFormat.NHWC),
               vision.CutMixBatch(vision.ImageBatchFormat.NCHW, 2.0, 0.5)):
        x, y = op(imgs, labels)
        out.append([str(x.dtype), list(x.shape), str(y.dtype), list(y.shape), np.round(y.sum(axis=1), 5)])
    x, y = vision.MixUp(4, 1.0)(imgs, labels)
    out.append([str(x.dtype), list(x.shape), str(y.dtype), list(y.shape), np.round(y.sum(axis=1), 5)])
    x, y = vision.CutMixBatch(vision.ImageBatchFormat.NHWC, 1.0, 0.0)(imgs, labels)
    out += [x, y]
    d = ds.NumpySlicesDataset({"image": imgs, "label": np.array([0, 1, 2, 3])}, shuffle=False)
    d = d.map(transforms.OneHot(4), input_columns=["label"]).batch(2)
    d = d.map(vision.MixUpBatch(), input_columns=["image", "label"])
    out += [[str(r[0].dtype), list(r[0].shape), np.round(r[1].sum(axis=1), 5)]
            for r in d.create_tuple_iterator(output_numpy=True)]
    return out
''')

_program("vision_in_map", '''
def run():
    imgs = np.random.RandomState(2).randint(0, 256, (3, 6, 5, 3)).astype(np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.HorizontalFlip(), vision.AdjustBrightness(1.3), vision.Crop((1, 1), (4, 3)),
               vision.Rotate(90), vision.Posterize(4), vision.PadToSize((6, 6)), vision.ToType(np.float32)],
              input_columns=["image"])
    out = column(d)
    e = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    e = e.map(vision.SlicePatches(1, 2), input_columns=["image"], output_columns=["left", "right"])
    out += [list(r) for r in e.create_tuple_iterator(output_numpy=True)]
    f = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    f = f.map([vision.RandomVerticalFlip(1.0), vision.RandomColorAdjust(brightness=(0.5, 0.5)),
               vision.Resize((3, 3), vision.Inter.NEAREST)], input_columns=["image"])
    out += column(f)
    return out
''')

_program("vision_bad_arguments", '''
def run():
    img = picture(4, 5)
    cases = [lambda: vision.AdjustBrightness(-1), lambda: vision.AdjustHue(0.7),
             lambda: vision.AdjustHue(0.1)(img[:, :, :1]),
             lambda: vision.Posterize(9), lambda: vision.Solarize((200, 100)), lambda: vision.Crop((0, 0),
                (9, 9))(img),
             lambda: vision.Crop((-1, 0), 2), lambda: vision.GaussianBlur(4), lambda: vision.ConvertColor(7),
             lambda: vision.PadToSize((2, 2))(img),
             lambda: vision.RandomVerticalFlip(1.5), lambda: vision.RandomColorAdjust(hue=0.7),
             lambda: vision.CutOut(0), lambda: vision.MixUpBatch(-1.0), lambda: vision.CutMixBatch("NHWC"),
             lambda: vision.Decode()(img), lambda: vision.read_file("/no/such/file.png"),
             lambda: vision.encode_jpeg(img, 0), lambda: vision.RandAugment(2, 40, 31),
             lambda: vision.ResizeWithBBox(4)(img, np.array([[4, 0, 3, 3]], np.float32)),
             lambda: vision.UniformAugment([vision.Invert()], 3), lambda: vision.Grayscale(2)]
    return [kind(case) for case in cases]
''', errors=True)


if __name__ == "__main__":  # re-record ms_dataset_names_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_dataset_names_expected.json"))
