"""all-MiniLM-L6-v2 without torch reproduces sentence-transformers (tests/data/minilm_reference.json).

The reference vectors were made by tools/make_embed_reference.py with sentence-transformers
and torch, from the same model files. These tests need the installed model (`kbg model
install`, which `make` runs) and skip without it; a damaged model fails them instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kbgraph.embed import load_embedder
from kbgraph.embed.minilm import length_sorted_batches
from kbgraph.embed.model_files import MODEL_VERSION, model_status
from kbgraph.errors import ModelMissing

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"
MIN_COSINE = 0.999


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], np.ndarray, list[int]]:
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    cases = data["cases"]
    return ([c["text"] for c in cases], np.array([c["vector"] for c in cases], dtype=np.float32),
            [c["tokens"] for c in cases])


def _load(name: str):
    try:
        return load_embedder(name)
    except ModelMissing:
        pytest.skip(f"the embedding model is not installed at {model_status(full=False).path}: "
                    "run `kbg model install` (or `make install`) to run these tests")


@pytest.fixture(scope="module")
def minilm():
    return _load("minilm-numpy")  # the fp32 forward pass; the default, "minilm", is int8 (tests/test_embed_int8.py)


@pytest.fixture(scope="module")
def minilm_onnx():
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (no wheel for this platform)")
    return _load("minilm-onnx")


@pytest.fixture(scope="module")
def reference_vectors(minilm, reference) -> np.ndarray:
    """The reference texts through the numpy embedder, computed once for the module."""
    return minilm.embed(reference[0])


def _cosines(vectors: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return (vectors * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)


def _compared(texts: list[str], vectors: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Cosines to sentence-transformers for the texts with words; a blank text must have a zero row
    (kbgraph gives it no vector, where sentence-transformers embeds "[CLS] [SEP]")."""
    blank = np.array([not text.strip() for text in texts])
    assert blank.any() and not vectors[blank].any()
    return _cosines(vectors[~blank], expected[~blank])


def test_reference_cases_cover_what_they_should(reference):
    texts, _, tokens = reference
    assert len(texts) >= 20 and "" in texts
    assert max(tokens) == 256 and sum(t == 256 for t in tokens) >= 2  # truncation is exercised
    assert any(ord(ch) > 0x3000 for text in texts for ch in text)  # CJK
    assert any("def " in text for text in texts)  # code


def test_numpy_forward_matches_sentence_transformers(reference_vectors, reference):
    texts, expected, _ = reference
    cosines = _compared(texts, reference_vectors, expected)
    worst = int(np.argmin(cosines))
    assert cosines.min() >= MIN_COSINE, f"{[t for t in texts if t.strip()][worst][:40]!r}: cosine {cosines[worst]:.6f}"


def test_tokenizer_truncates_like_sentence_transformers(minilm, reference):
    texts, _, tokens = reference
    assert [len(ids) for ids in minilm.tokenizer.encode(texts)] == tokens


def test_vectors_do_not_depend_on_batching_or_threads(minilm, reference, reference_vectors):
    texts, _, _ = reference
    together = reference_vectors
    alone = np.vstack([minilm.embed([text]) for text in texts[:6]])
    assert np.allclose(together[:6], alone, atol=2e-6)
    original = (minilm.batch_size, minilm.threads)
    try:
        minilm.batch_size, minilm.threads = 3, 1
        assert np.allclose(minilm.embed(texts), together, atol=2e-6)
    finally:
        minilm.batch_size, minilm.threads = original


def test_shape_dtype_norm_and_identity(minilm):
    assert (minilm.name, minilm.dim) == ("all-MiniLM-L6-v2", 384)
    assert minilm.version.startswith("53aa5117")
    vectors = minilm.embed(["one", "two", "one"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])


def test_empty_input_is_zero_rows(minilm):
    out = minilm.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_deterministic_across_calls(minilm, reference, reference_vectors):
    assert np.array_equal(minilm.embed(reference[0]), reference_vectors)


def test_meaning_orders_neighbours(minilm):
    query, near, far = minilm.embed(["Who manages the search team?", "Ana Lima leads the search engineers.",
                                     "The cafeteria serves lunch at noon."])
    assert query @ near > query @ far + 0.2


def test_onnx_backend_matches_the_reference(minilm_onnx, reference):
    texts, expected, _ = reference
    assert _compared(texts, minilm_onnx.embed(texts), expected).min() >= MIN_COSINE
    assert (minilm_onnx.name, minilm_onnx.version) == ("all-MiniLM-L6-v2", MODEL_VERSION)  # same vectors, same tag
    assert minilm_onnx.embed([]).shape == (0, 384)


def test_batches_group_similar_lengths_within_budgets():
    token_ids = [[1] * n for n in (5, 250, 7, 250, 30, 6)]
    batches = length_sorted_batches(token_ids, max_texts=3, max_tokens=600)
    # 250, 250 | 30 (under half of 250) | 7, 6, 5 (three texts at most)
    assert [sorted(b.tolist()) for b in batches] == [[1, 3], [4], [0, 2, 5]]
    assert [b.tolist() for b in length_sorted_batches(token_ids, 8, 300)] == [[1], [3], [4], [2, 5, 0]]
    assert sorted(i for b in batches for i in b.tolist()) == list(range(6))
    assert [b.tolist() for b in length_sorted_batches([[1] * 300], 8, 100)] == [[0]]  # never an empty batch
