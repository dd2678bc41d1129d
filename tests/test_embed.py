"""The embedder interface, the registry and the fake embedder: no model files needed, never skipped."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kbgraph.embed import Embedder, FakeEmbedder, available_embedders, load_embedder, register_embedder
from kbgraph.errors import BackendUnavailable, ConfigError, ModelMissing


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)  # rows are unit length


def test_fake_rows_are_unit_float32_of_the_right_shape():
    vectors = FakeEmbedder(dim=64).embed(["alpha beta", "", "   ", "gamma", "ünïcödé 東京"])
    assert vectors.shape == (5, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)  # even with no words


def test_fake_empty_list_is_zero_rows():
    out = FakeEmbedder(dim=32).embed([])
    assert out.shape == (0, 32) and out.dtype == np.float32


def test_fake_is_deterministic_within_and_across_instances():
    texts = ["token rotation for the payments API", "who manages the search team?"]
    first = FakeEmbedder().embed(texts)
    assert np.array_equal(first, FakeEmbedder().embed(texts))
    assert np.array_equal(first[1], FakeEmbedder().embed([texts[1]])[0])  # batch-independent


def test_fake_vector_is_pinned_across_processes():
    """blake2b, not hash(): the same text gives the same vector in every process and release."""
    vector = FakeEmbedder(dim=16).embed(["hello world"])[0]
    # A snapshot, taken once: a change here means every stored fake vector changes too.
    expected = [0.0, 0.0, 0.1443, 0.0, -0.1443, 0.0, -0.1443, -0.1443,
                -0.1443, -0.7217, -0.1443, 0.0, -0.1443, -0.5774, 0.0, 0.0]
    assert np.allclose(vector, expected, atol=1e-4), vector.round(4).tolist()


def test_fake_ranks_shared_words_above_unrelated_text():
    query, near, stem, far = FakeEmbedder().embed([
        "kafka consumer lag alert",
        "the kafka consumer lag alert fired twice",
        "alerting on consumers",
        "quarterly budget review for marketing",
    ])
    assert _cosine(query, near) > _cosine(query, stem) > _cosine(query, far)


def test_fake_is_an_embedder():
    assert isinstance(FakeEmbedder(), Embedder)
    with pytest.raises(ValueError):
        FakeEmbedder(dim=4)


def test_registry_names_the_builtins_and_makes_the_fake():
    assert {"minilm", "minilm-int8", "minilm-numpy", "minilm-onnx", "fake"} <= set(available_embedders())
    embedder = load_embedder("fake", dim=48)
    assert isinstance(embedder, FakeEmbedder) and embedder.dim == 48
    assert (embedder.name, embedder.version) == ("fake", "1")


def test_registry_unknown_name_lists_the_choices():
    with pytest.raises(ConfigError, match="unknown embedder 'nope'.*fake"):
        load_embedder("nope")


def test_registry_takes_a_custom_embedder_the_same_way():
    class Constant:
        name, version, dim = "constant", "0", 3

        def embed(self, texts):
            return np.tile(np.array([1, 0, 0], dtype=np.float32), (len(texts), 1))

    register_embedder("test-constant", Constant)
    try:
        assert load_embedder("test-constant").embed(["a", "b"]).shape == (2, 3)
        with pytest.raises(ValueError, match="already registered"):
            register_embedder("test-constant", Constant)
    finally:
        from kbgraph.embed import registry

        registry._FACTORIES.pop("test-constant")


def test_default_embedder_without_model_files_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("KBG_MODEL_DIR", str(tmp_path / "absent"))
    with pytest.raises(ModelMissing, match="install the model"):
        load_embedder()


@pytest.mark.parametrize("name", ["minilm-onnx", "minilm-int8"])
def test_onnx_backends_without_onnxruntime_name_the_package(monkeypatch, name):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what `import onnxruntime` sees when absent
    with pytest.raises(BackendUnavailable, match=r"pip install onnxruntime==1\.31\.1"):
        load_embedder(name)


def test_fp32_onnx_without_onnx_names_the_package(monkeypatch):
    pytest.importorskip("onnxruntime")
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(BackendUnavailable, match=r"pip install onnx==1\.23\.2"):
        load_embedder("minilm-onnx")


def test_blank_texts_get_zero_rows_and_the_rest_are_embedded_once():
    from kbgraph.embed.base import embed_nonblank

    seen: list[list[str]] = []

    def embed(texts):
        seen.append(texts)
        return np.ones((len(texts), 3), dtype=np.float32)

    out = embed_nonblank(["", "a", " \n", "b"], 3, embed)
    assert seen == [["a", "b"]] and out.tolist() == [[0, 0, 0], [1, 1, 1], [0, 0, 0], [1, 1, 1]]
    assert embed_nonblank(["  "], 3, embed).shape == (1, 3) and len(seen) == 1  # nothing to embed: no call
