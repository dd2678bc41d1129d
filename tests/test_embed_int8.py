"""The int8 encoder's cache (made once, checked at every load, rebuilt or refused when damaged) and the
default embedder's choice between int8 and numpy.

The cache tests quantise a tiny random BERT (2 layers, 32 wide) built with the same graph builder as
the real model, so they take milliseconds and need no model files. The tests at the end use the real
model and skip without it, as tests/test_embed_minilm.py does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed on this platform")
pytest.importorskip("onnx", reason="onnx is not installed on this platform")

from kbgraph.embed import quantized  # noqa: E402
from kbgraph.embed.bert_numpy import encode_mean_pooled, weights_from_tensors  # noqa: E402
from kbgraph.embed.onnx_backend import build_encoder_graph, mean_pooled  # noqa: E402
from kbgraph.embed.quantized import INT8_FILE, INT8_STAMP, int8_model, int8_status  # noqa: E402
from kbgraph.errors import BackendUnavailable, ModelCorrupt  # noqa: E402

HIDDEN, LAYERS, HEADS, VOCAB, POSITIONS = 32, 2, 2, 50, 16
CONFIG = {"num_attention_heads": HEADS, "layer_norm_eps": 1e-12, "num_hidden_layers": LAYERS, "hidden_size": HIDDEN}
SOURCE = "tiny-weights-1"


def _tiny_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def w(*shape):
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    t = {"embeddings.word_embeddings.weight": w(VOCAB, HIDDEN),
         "embeddings.position_embeddings.weight": w(POSITIONS, HIDDEN),
         "embeddings.token_type_embeddings.weight": w(2, HIDDEN),
         "embeddings.LayerNorm.weight": 1 + w(HIDDEN), "embeddings.LayerNorm.bias": w(HIDDEN)}
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for name, (out, inp) in {"attention.self.query": (HIDDEN, HIDDEN), "attention.self.key": (HIDDEN, HIDDEN),
                                 "attention.self.value": (HIDDEN, HIDDEN), "attention.output.dense": (HIDDEN, HIDDEN),
                                 "intermediate.dense": (4 * HIDDEN, HIDDEN), "output.dense": (HIDDEN, 4 * HIDDEN)}.items():
            t[p + name + ".weight"], t[p + name + ".bias"] = w(out, inp), w(out)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = 1 + w(HIDDEN), w(HIDDEN)
    return t


class Builds:
    """build_graph for int8_model, counting how often the cache had to (re)build."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return build_encoder_graph(_tiny_tensors(), CONFIG)


def _run(path: Path, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (states,) = session.run(None, {"input_ids": ids, "attention_mask": mask.astype(np.int32)})
    return mean_pooled(states, mask)


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    ids = np.array([[1, 7, 9, 22, 3, 2], [1, 40, 5, 2, 0, 0]], dtype=np.int64)
    return ids, ids != 0


def test_made_once_then_read_from_the_cache(tmp_path):
    build = Builds()
    path = int8_model(tmp_path, SOURCE, build)
    assert path == tmp_path / INT8_FILE and build.calls == 1
    stamp = json.loads((tmp_path / INT8_STAMP).read_text())
    assert stamp["source"] == SOURCE and stamp["recipe"] == quantized.RECIPE
    assert int8_model(tmp_path, SOURCE, build) == path and build.calls == 1  # verified, not rebuilt
    assert int8_status(tmp_path, SOURCE) == "ok"
    assert not list(tmp_path.glob("*.partial"))


def test_quantised_graph_computes_what_the_fp32_forward_does(tmp_path):
    """Judged against the numpy forward pass of the same tiny weights: close, and not equal (it is int8)."""
    ids, mask = _inputs()
    expected = encode_mean_pooled(weights_from_tensors(_tiny_tensors(), HEADS, 1e-12), ids, mask)
    got = _run(int8_model(tmp_path, SOURCE, Builds()), ids, mask)
    cosines = (got * expected).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(expected, axis=1)
    assert cosines.min() > 0.97, cosines
    assert not np.allclose(got, expected, atol=1e-6)


def test_quantising_is_deterministic(tmp_path):
    """Two processes racing to make the file write the same bytes, so either order leaves a matching stamp."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        int8_model(tmp_path / folder, SOURCE, Builds())
    assert (tmp_path / "a" / INT8_FILE).read_bytes() == (tmp_path / "b" / INT8_FILE).read_bytes()


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "delete the stamp", "other weights", "other recipe"])
def test_damaged_or_stale_file_is_rebuilt(tmp_path, damage):
    build = Builds()
    path = int8_model(tmp_path, SOURCE, build)
    good = path.read_bytes()
    stamp_path = tmp_path / INT8_STAMP
    stamp = json.loads(stamp_path.read_text())
    if damage == "flip a byte":
        data = bytearray(good)
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(good[: len(good) // 3])
    elif damage == "delete the stamp":
        stamp_path.unlink()
    elif damage == "other weights":
        stamp_path.write_text(json.dumps({**stamp, "source": "older-weights"}))
    else:
        stamp_path.write_text(json.dumps({**stamp, "recipe": "int8-per-tensor-0"}))
    assert int8_status(tmp_path, SOURCE) != "ok"
    assert int8_model(tmp_path, SOURCE, build) == path and build.calls == 2
    assert path.read_bytes() == good and int8_status(tmp_path, SOURCE) == "ok"


def test_a_load_trusts_a_stamped_stat_and_a_rewrite_behind_it_is_still_found(tmp_path, monkeypatch):
    """Loading for a query skips hashing the file when its size, times and inode are those stamped
    (~45 ms a search); a status check always hashes; a byte flipped with its mtime put back changes
    its ctime, so a load hashes it and rebuilds."""
    build = Builds()
    path = int8_model(tmp_path, SOURCE, build)
    hashed = []
    real = quantized.sha256_of
    monkeypatch.setattr(quantized, "sha256_of", lambda p: hashed.append(p) or real(p))
    assert int8_model(tmp_path, SOURCE, build) == path and hashed == []
    assert int8_status(tmp_path, SOURCE) == "ok" and hashed == [path]
    good, st = path.read_bytes(), path.stat()
    data = bytearray(good)
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert int8_model(tmp_path, SOURCE, build) == path and build.calls == 2
    assert path.read_bytes() == good


def test_damaged_file_without_onnx_names_the_file_and_the_fix(tmp_path, monkeypatch):
    path = int8_model(tmp_path, SOURCE, Builds())
    path.write_bytes(b"not a model")
    monkeypatch.setitem(sys.modules, "onnx", None)  # what `import onnx` sees when it is absent
    with pytest.raises(ModelCorrupt, match=rf"{INT8_FILE} is damaged.*install the model") as caught:
        int8_model(tmp_path, SOURCE, Builds())
    assert str(path) in str(caught.value)


def test_missing_file_without_onnx_is_a_missing_backend(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(BackendUnavailable, match="pip install onnx=="):
        int8_model(tmp_path, SOURCE, Builds())
    assert not (tmp_path / INT8_FILE).exists()


def test_unwritable_folder_is_a_clear_error(tmp_path, monkeypatch):
    def refuse(source, final):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(quantized, "_move_into", refuse)
    with pytest.raises(ModelCorrupt, match="cannot write the quantised model.*Permission denied.*KBG_MODEL_DIR"):
        int8_model(tmp_path, SOURCE, Builds())


def test_quantiser_advice_does_not_reach_the_user(tmp_path, capfd):
    int8_model(tmp_path, SOURCE, Builds())
    captured = capfd.readouterr()
    assert "pre-processing" not in captured.err + captured.out


def test_the_cli_error_for_a_damaged_int8_file_is_one_line(tmp_path):
    """Through the CLI's error handling: the file and the fix, no traceback."""
    from kbgraph.cli.wording import cli_words
    from kbgraph.embed.quantized import REBUILD_HINT

    assert "kbg model install" in cli_words(REBUILD_HINT)


def test_model_install_makes_the_int8_file_and_says_so(tmp_path, monkeypatch):
    from kbgraph.embed import install, onnx_backend

    monkeypatch.setattr(onnx_backend, "encoder_graph", lambda folder: build_encoder_graph(_tiny_tensors(), CONFIG))
    said: list[str] = []
    assert install._prepare_int8(tmp_path, False, said.append) == "made" and (tmp_path / INT8_FILE).is_file()
    assert install._prepare_int8(tmp_path, False, said.append) == "already made" and len(said) == 1
    (tmp_path / INT8_FILE).unlink()
    monkeypatch.setitem(sys.modules, "onnx", None)
    outcome = install._prepare_int8(tmp_path, False, said.append)  # best effort: the install itself still succeeds
    assert outcome.startswith("not made:") and "pip install onnx" in said[-1]


# --- the real model (skipped without it) -------------------------------------------


def _real(name: str):
    from kbgraph.embed import load_embedder
    from kbgraph.embed.model_files import model_status
    from kbgraph.errors import ModelMissing

    try:
        return load_embedder(name)
    except ModelMissing:
        pytest.skip(f"the embedding model is not installed at {model_status(full=False).path}: run `kbg model install`")


@pytest.fixture(scope="module")
def int8():
    return _real("minilm-int8")


@pytest.fixture(scope="module")
def numpy_fp32():
    return _real("minilm-numpy")


def test_int8_is_the_default_and_has_its_own_tag(int8, numpy_fp32):
    from kbgraph.embed import load_embedder

    default = load_embedder()
    assert (default.name, default.version) == (int8.name, int8.version)
    assert int8.name == numpy_fp32.name and int8.version != numpy_fp32.version  # switching re-embeds
    assert int8.version.startswith(numpy_fp32.version)


def test_int8_keeps_meaning_and_stays_near_fp32(int8, numpy_fp32):
    texts = ["Who manages the search team?", "Ana Lima leads the search engineers.", "The cafeteria serves lunch at noon.",
             "Rotate the payments API token every 90 days.", "kubelet image garbage collection thresholds"]
    a, b = int8.embed(texts), numpy_fp32.embed(texts)
    assert a[0] @ a[1] > a[0] @ a[2] + 0.2
    assert np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-5)
    assert ((a * b).sum(1)).min() > 0.95


def test_a_vector_depends_on_its_text_alone(int8):
    """Dynamic quantisation scales activations per call: int8 embeds one text a call, so neither the
    neighbours in a call nor the number of sessions changes a vector (a stored vector equals the query's)."""
    from kbgraph.embed.onnx_backend import OnnxMiniLMEmbedder

    texts = [f"section {i}: " + "word " * (i * 7 % 90) for i in range(40)]
    together = int8.embed(texts)
    assert np.array_equal(together[5], int8.embed([texts[5]])[0])
    assert np.array_equal(together[:3], int8.embed(texts[:3]))
    one = OnnxMiniLMEmbedder(precision="int8", sessions=1, threads=1)
    assert np.array_equal(one.embed(texts), together)
    assert len(one.sessions) == 1 and len(int8.sessions) == int8.session_count


def test_a_query_makes_one_session_and_a_batch_of_texts_makes_them_all(int8):  # int8: skips without the model
    """A hybrid search embeds one text: making every session first cost ~35-65 ms each for nothing."""
    from kbgraph.embed.onnx_backend import OnnxMiniLMEmbedder

    embedder = OnnxMiniLMEmbedder(precision="int8", sessions=2, threads=2)
    embedder.embed(["token rotation"])
    assert len(embedder.sessions) == 1
    embedder.embed([f"section {i}" for i in range(8)])
    assert len(embedder.sessions) == 2


@pytest.mark.parametrize("name", ["minilm-int8", "minilm-numpy"])
def test_blank_texts_get_no_vector_and_do_not_disturb_the_rest(name, int8, numpy_fp32):
    embedder = int8 if name == "minilm-int8" else numpy_fp32
    out = embedder.embed(["", "kafka consumer lag", "   \n\t ", "kafka consumer lag"])
    assert out.shape == (4, 384)
    assert not out[0].any() and not out[2].any()  # zero rows: nothing to embed
    assert np.allclose(out[1], embedder.embed(["kafka consumer lag"])[0], atol=1e-5)
    assert not embedder.embed(["", " "]).any()


@pytest.mark.parametrize("name", ["minilm-int8", "minilm-numpy"])
def test_a_text_past_the_window_is_cut_at_256_tokens(name, int8, numpy_fp32):
    """Truncated as sentence-transformers does (docs/embeddings.md says why not windows): the vector of a very
    long text is the vector of its first 254 word pieces, and costs no more than they do."""
    embedder = int8 if name == "minilm-int8" else numpy_fp32
    words = [f"term{i % 97} alpha{i % 13}" for i in range(20_000)]
    long_text = " ".join(words)
    ids = embedder.tokenizer.encode([long_text])[0]
    assert len(ids) == 256
    head = embedder.tokenizer._tokenizer.decode(ids[1:-1])  # the text the model saw
    assert float(embedder.embed([long_text])[0] @ embedder.embed([head])[0]) > 0.999


def test_without_onnxruntime_the_default_is_numpy_with_one_line_and_no_traceback(tmp_path, numpy_fp32):
    blocker = tmp_path / "block" / "onnxruntime"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('blocked for a test')\n")
    code = ("from kbgraph.embed import load_embedder\n"
            "e = load_embedder(); load_embedder()\n"
            "print(type(e).__name__, e.version)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(tmp_path / "block"), "PATH": "/usr/bin:/bin",
                               "HOME": str(Path.home()), "KBG_MODEL_DIR": str(numpy_fp32.folder)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MiniLMEmbedder", numpy_fp32.version]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "numpy" in lines[0] and "pip install onnxruntime" in lines[0], done.stderr


def test_a_load_from_the_cache_needs_onnxruntime_alone(int8):
    """onnx (seconds to import on a busy machine) is for making the file, not for running it."""
    code = ("import sys\nfrom kbgraph.embed import load_embedder\n"
            "e = load_embedder('minilm-int8'); e.embed(['a note'])\n"
            "print('onnx' in sys.modules, 'onnxruntime.quantization' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "KBG_MODEL_DIR": str(int8.folder)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]
