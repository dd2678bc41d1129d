"""all-MiniLM-L6-v2 on onnxruntime, in fp32 (same vectors as numpy) or int8 (faster, its own model tag).

No exported .onnx file is needed (exporting one takes torch): the graph is built here
from the safetensors weights with `onnx.helper`. It uses onnxruntime's fused BERT
kernels from the com.microsoft domain directly rather than hoping its optimiser
recognises a hand-written pattern:

    Attention               QKV projection, masked scaled-dot-product, all heads
    SkipLayerNormalization  residual add + bias + LayerNorm in one pass
    BiasGelu                bias + exact (erf) GELU

fp32 builds the graph at every load (needs `onnx`) and matches the numpy embedder (cosine
> 0.99999 on the reference set), so it shares its model tag. int8 runs the graph that
quantized.py quantised once and cached beside the model files, so a load needs only
onnxruntime; its vectors differ a little (cosine ~0.98 to fp32, ranking kept: see
docs/embeddings.md), so it has a tag of its own and switching re-embeds.

Tokenising, length-sorted batching and mean pooling are shared with the numpy embedder.

How each runs (measured here, bench/embed_speed.py, RESULTS.md §embeddings):
- int8 embeds one text per call, on one single-threaded session per CPU fed from one queue.
  Dynamic quantisation picks each activation's int8 scale from the whole batch tensor, so in
  a batch a text's vector would depend on its neighbours (and their padding); one text a call
  makes it a function of the text alone (the stored vector of a text equals its query
  vector), and was also the cheapest: 12.8 CPU ms per KEP chunk against 17.3 in batches of 16.
  Two sessions beat one session with two intra-op threads, which spent 20-27 CPU ms a chunk.
- fp32 keeps length-sorted batches of 16 on one session with intra-op threads, as before.
"""

from __future__ import annotations

import json
import queue
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..errors import BackendUnavailable
from .base import embed_nonblank, empty_result, normalise_rows
from .minilm import DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, MiniLMTokenizer, length_sorted_batches, \
    load_tensors, pad, usable_cpus
from .model_files import MODEL_DIM, MODEL_NAME, MODEL_VERSION, WEIGHTS_FILE, WEIGHTS_SHA256, verify_model
from .quantized import RECIPE, int8_model

_OPSET = 17
_CONTRIB = "com.microsoft"
INT8_VERSION = f"{MODEL_VERSION}-{RECIPE}"
PRECISIONS = ("fp32", "int8")


def import_onnxruntime():
    try:
        import onnxruntime
    except ImportError:
        raise BackendUnavailable(
            "onnxruntime is not installed (kbgraph depends on it only where it has wheels: Linux x86-64 and "
            "aarch64, macOS arm64, Windows x86-64): pip install onnxruntime==1.31.1 onnx==1.23.2 to embed faster"
        ) from None
    return onnxruntime


def _import_onnx() -> None:
    try:
        import onnx  # noqa: F401  (build_encoder_graph needs it)
    except ImportError:
        raise BackendUnavailable(
            "building the ONNX graph needs onnx: pip install onnx==1.23.2 (the int8 embedder needs it only "
            "once, to make its file)"
        ) from None


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 on onnxruntime. precision "fp32": the numpy embedder's name and version
    (interchangeable vectors); "int8": the quantised graph, version INT8_VERSION."""

    name = MODEL_NAME
    dim = MODEL_DIM

    def __init__(self, folder: Path | None = None, precision: str = "fp32", batch_size: int | None = None,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, threads: int | None = None, sessions: int | None = None):
        """sessions: single-threaded sessions run side by side (int8's default: one per CPU); 1 runs
        one session on `threads` intra-op threads (fp32's default). batch_size: texts a call
        (int8's default 1, fp32's DEFAULT_BATCH_SIZE)."""
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
        onnxruntime = import_onnxruntime()
        if precision == "fp32":
            _import_onnx()
        self.folder = verify_model(folder)
        self.precision = precision
        self.version = MODEL_VERSION if precision == "fp32" else INT8_VERSION
        int8 = precision == "int8"
        self.batch_size = batch_size or (1 if int8 else DEFAULT_BATCH_SIZE)
        self.batch_tokens = batch_tokens
        self.threads = threads or usable_cpus()
        self.session_count = sessions or (self.threads if int8 else 1)
        self.tokenizer = MiniLMTokenizer(self.folder)
        self._onnxruntime = onnxruntime
        self._model = self._model_bytes_or_path()
        # Sessions are made when a call has the batches for them: a query (one text) needs one, and
        # each costs ~35-65 ms to make, the larger part of a hybrid search's model start-up.
        self.sessions: list = [self._new_session()]

    def _new_session(self):
        return _session(self._onnxruntime, self._model, 1 if self.session_count > 1 else self.threads)

    def _sessions_for(self, batches: int) -> list:
        while len(self.sessions) < min(self.session_count, batches):
            self.sessions.append(self._new_session())
        return self.sessions[:max(1, min(self.session_count, batches))]

    def _model_bytes_or_path(self) -> bytes | str:
        if self.precision == "int8":
            return str(int8_model(self.folder, WEIGHTS_SHA256, lambda: encoder_graph(self.folder)))
        return encoder_graph(self.folder).SerializeToString()

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_nonblank(texts, self.dim, self._embed)

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return empty_result(self.dim)
        token_ids = self.tokenizer.encode(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        batches = length_sorted_batches(token_ids, self.batch_size, self.batch_tokens)

        def run(session, positions: np.ndarray) -> None:
            ids, mask = pad([token_ids[i] for i in positions])
            (states,) = session.run(None, {"input_ids": ids, "attention_mask": mask.astype(np.int32)})
            out[positions] = mean_pooled(states, mask)

        sessions = self._sessions_for(len(batches))
        if len(sessions) == 1:
            for positions in batches:
                run(sessions[0], positions)
        else:
            idle: queue.SimpleQueue = queue.SimpleQueue()  # a worker takes a free session per batch
            for session in sessions:
                idle.put(session)

            def work(positions: np.ndarray) -> None:
                session = idle.get()
                try:
                    run(session, positions)  # session.run releases the GIL: the sessions run in parallel
                finally:
                    idle.put(session)

            with ThreadPoolExecutor(len(sessions)) as pool:
                list(pool.map(work, batches))  # list(): re-raises a worker's exception here
        return normalise_rows(out)


def _session(onnxruntime, model: bytes | str, threads: int):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # warnings about unused initialisers are noise here
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def mean_pooled(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(batch, hidden): the mean of the last hidden states over real tokens, as sentence-transformers pools."""
    maskf = mask.astype(np.float32)
    summed = np.matmul(maskf[:, None, :], states)[:, 0, :]
    return summed / np.maximum(maskf.sum(axis=1, keepdims=True), np.float32(1e-9))


def encoder_graph(folder: Path):
    """The encoder graph of the (verified) model in `folder`."""
    _import_onnx()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return build_encoder_graph(load_tensors(folder / WEIGHTS_FILE), config)


def build_encoder_graph(tensors: dict[str, np.ndarray], config: dict):
    """A ModelProto: (input_ids int64 [B, L], attention_mask int32 [B, L]) -> last hidden states [B, L, H]."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, initializers = [], []

    def weight(name: str, value: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value, dtype=np.float32), name))
        return name

    def t(name: str) -> np.ndarray:  # BertModel checkpoints have no "bert." prefix; BertFor* ones do
        value = tensors.get(name, tensors.get("bert." + name))
        if value is None:
            raise KeyError(f"the weights have no tensor {name!r}")
        return np.asarray(value, dtype=np.float32)

    heads, eps = config["num_attention_heads"], float(config["layer_norm_eps"])
    # Embeddings: word + (position + token type 0), then LayerNorm.
    word = weight("word", t("embeddings.word_embeddings.weight"))
    positions = weight("positions", t("embeddings.position_embeddings.weight")
                       + t("embeddings.token_type_embeddings.weight")[0])
    initializers.append(numpy_helper.from_array(np.array([0], dtype=np.int64), "zero"))
    initializers.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "one"))
    nodes += [
        helper.make_node("Gather", [word, "input_ids"], ["word_vectors"]),
        helper.make_node("Shape", ["input_ids"], ["length"], start=1, end=2),
        helper.make_node("Slice", [positions, "zero", "length", "zero"], ["position_vectors"]),
        helper.make_node("Add", ["word_vectors", "position_vectors"], ["embedded"]),
        helper.make_node("LayerNormalization", ["embedded", weight("embed_g", t("embeddings.LayerNorm.weight")),
                                                weight("embed_b", t("embeddings.LayerNorm.bias"))],
                         ["x0"], axis=-1, epsilon=eps),
    ]
    x = "x0"
    for i in range(config["num_hidden_layers"]):
        x = _layer(nodes, weight, t, f"encoder.layer.{i}.", f"l{i}", x, heads, eps)
    graph = helper.make_graph(
        nodes, "minilm_encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT32, ["batch", "length"])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "length", config["hidden_size"]])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET),
                                                    helper.make_opsetid(_CONTRIB, 1)])
    model.ir_version = 8  # readable by every onnxruntime that has these contrib ops
    return model


def _layer(nodes, weight, t, p: str, tag: str, x: str, heads: int, eps: float) -> str:
    from onnx import helper

    def linear(name: str) -> tuple[str, str]:  # torch keeps (out, in); ONNX MatMul wants (in, out)
        return weight(f"{tag}_{name}_w", t(p + name + ".weight").T), weight(f"{tag}_{name}_b", t(p + name + ".bias"))

    attn = "attention.self."
    qkv_w = np.concatenate([t(p + attn + n + ".weight").T for n in ("query", "key", "value")], axis=1)
    qkv_b = np.concatenate([t(p + attn + n + ".bias") for n in ("query", "key", "value")])
    out_w, out_b = linear("attention.output.dense")
    in_w, in_b = linear("intermediate.dense")
    down_w, down_b = linear("output.dense")
    nodes += [
        helper.make_node("Attention", [x, weight(f"{tag}_qkv_w", qkv_w), weight(f"{tag}_qkv_b", qkv_b),
                                       "attention_mask"], [f"{tag}_context"], domain=_CONTRIB, num_heads=heads),
        helper.make_node("MatMul", [f"{tag}_context", out_w], [f"{tag}_attn_proj"]),
        helper.make_node("SkipLayerNormalization",
                         [f"{tag}_attn_proj", x, weight(f"{tag}_ln1_g", t(p + "attention.output.LayerNorm.weight")),
                          weight(f"{tag}_ln1_b", t(p + "attention.output.LayerNorm.bias")), out_b],
                         [f"{tag}_h"], domain=_CONTRIB, epsilon=eps),
        helper.make_node("MatMul", [f"{tag}_h", in_w], [f"{tag}_inner_raw"]),
        helper.make_node("BiasGelu", [f"{tag}_inner_raw", in_b], [f"{tag}_inner"], domain=_CONTRIB),
        helper.make_node("MatMul", [f"{tag}_inner", down_w], [f"{tag}_down"]),
        helper.make_node("SkipLayerNormalization",
                         [f"{tag}_down", f"{tag}_h", weight(f"{tag}_ln2_g", t(p + "output.LayerNorm.weight")),
                          weight(f"{tag}_ln2_b", t(p + "output.LayerNorm.bias")), down_b],
                         [f"{tag}_out"], domain=_CONTRIB, epsilon=eps),
    ]
    return f"{tag}_out"
