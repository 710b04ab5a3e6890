"""Language-model text (datasets/text.py, tokenizer.py, windows.py): files read or refused
in one line, nanoGPT's split, tokenizers that round-trip and survive as JSON, and random
windows that are a pure function of (seed, batch number)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from datasets.errors import DatasetError
from datasets.text import corpus, read_text, split_text
from datasets.tokenizer import CharTokenizer, tokenizer_from_dict, train_tokenizer
from datasets.windows import TokenWindows

SHARED = Path(os.environ.get("TRAIN_DATA_DIR", "/nonexistent")) / "tinyshakespeare" / "input.txt"


@pytest.mark.parametrize("content, message", [
    (b"", "is empty"), (b"abc\0def", "binary file"), (b"line one\n\xff\xfe bad", ":2: not UTF-8 text")])
def test_bad_text_files_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(DatasetError, match=message) as info:
        read_text(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_a_folder_or_missing_root_is_refused(tmp_path):
    with pytest.raises(DatasetError, match="is a folder"):
        read_text(tmp_path)
    with pytest.raises(DatasetError, match="needs dataset.root"):
        corpus("text")


@pytest.mark.skipif(not SHARED.is_file(), reason="TRAIN_DATA_DIR with tinyshakespeare/ is not set")
def test_tiny_shakespeare_split_as_nanogpt():
    text, path = corpus("tinyshakespeare", download=False)
    train, val = split_text(text, 0.1)
    assert path == SHARED and len(text) == 1_115_394
    assert (len(train), len(val)) == (1_003_854, 111_540)
    tok = train_tokenizer("char", train)
    assert tok.vocab_size == 65 and tok.decode(tok.encode(val[:500])) == val[:500]


def test_char_tokenizer_round_trips_and_keeps_as_json():
    tok = CharTokenizer.train("hello world")
    assert tok.chars == " dehlorw" and list(tok.encode("hold")) == [3, 5, 4, 1]
    again = tokenizer_from_dict(json.dumps(tok.to_dict()))
    assert again.decode(again.encode("world hello")) == "world hello"
    with pytest.raises(DatasetError, match="'z' is not in the vocabulary"):
        tok.encode("zzz")


def test_bpe_tokenizer_trains_on_the_text_and_round_trips():
    pytest.importorskip("tokenizers")
    text = "the quick brown fox jumps over the lazy dog\n" * 200
    tok = train_tokenizer("bpe", text, vocab_size=300)
    ids = tok.encode("the lazy fox\n")
    assert len(ids) < len("the lazy fox\n") and tok.decode(ids) == "the lazy fox\n"
    again = tokenizer_from_dict(tok.to_dict())
    assert again.decode(again.encode("über")) == "über"  # bytes outside the text still round-trip
    with pytest.raises(DatasetError, match="vocab_size >= 257"):
        train_tokenizer("bpe", text, vocab_size=100)


def test_windows_are_shifted_targets_drawn_from_seed_and_batch_number():
    ids = np.arange(1000, dtype=np.int32)
    w = TokenWindows(ids, block_size=8, batch_size=4, steps=3, seed=7)
    batches = list(w)
    assert len(batches) == 3 and list(w)[0][0].shape == (4, 8)  # the second loop: epoch 2
    x, y = batches[0]
    np.testing.assert_array_equal(y, x + 1)
    starts = np.random.default_rng([7, 0]).integers(0, 1000 - 8, 4)
    np.testing.assert_array_equal(x[:, 0], starts)


def test_shards_draw_the_global_batch_between_them_and_resume_by_position():
    ids = np.arange(5000, dtype=np.int32)
    whole = TokenWindows(ids, 16, 6, steps=5, seed=3)
    ranks = [TokenWindows(ids, 16, 3, steps=5, seed=3, num_shards=2, shard_id=r) for r in (0, 1)]
    for k in range(4):
        union = np.concatenate([r.batch(k)[0] for r in ranks])
        assert sorted(map(tuple, union)) == sorted(map(tuple, whole.batch(k)[0]))
    assert not np.array_equal(ranks[0].batch(0)[0], ranks[1].batch(0)[0])
    a = TokenWindows(ids, 16, 6, steps=5, seed=3)
    it = iter(a)
    next(it), next(it)
    state = a.state_dict()
    b = TokenWindows(ids, 16, 6, steps=5, seed=3)
    b.load_state_dict(state)
    np.testing.assert_array_equal(next(iter(b))[0], next(it)[0])
    with pytest.raises(ValueError, match="seed was 3, now 4"):
        TokenWindows(ids, 16, 6, steps=5, seed=4).load_state_dict(state)


def test_sequential_windows_cover_the_text_in_order():
    ids = np.arange(100, dtype=np.int32)
    w = TokenWindows(ids, 10, 3, steps=50, sequential=True)
    xs = np.concatenate([x for x, _ in w])
    assert len(w) == 3 and xs[:, 0].tolist() == list(range(0, 90, 10))
    with pytest.raises(DatasetError, match="fewer than block_size"):
        TokenWindows(ids[:5], 10, 3, steps=1)
