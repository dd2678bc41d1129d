"""all-MiniLM-L6-v2 on onnxruntime: optional (`pip install 'kbgraph[fast]'`), same weights, same vectors.

No exported .onnx file is needed (exporting one takes torch): the graph is built here,
at load, from the safetensors weights with `onnx.helper`. It uses onnxruntime's
fused BERT kernels from the com.microsoft domain directly rather than hoping its
optimiser recognises a hand-written pattern:

    Attention               QKV projection, masked scaled-dot-product, all heads
    SkipLayerNormalization  residual add + bias + LayerNorm in one pass
    BiasGelu                bias + exact (erf) GELU

Tokenising, batching and mean pooling are shared with the numpy embedder, so the two
differ only in the encoder's arithmetic (cosine > 0.99999 on the reference set).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import BackendUnavailable
from .base import empty_result, normalise_rows
from .minilm import DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, MiniLMTokenizer, length_sorted_batches, \
    load_tensors, pad, usable_cpus
from .model_files import MODEL_DIM, MODEL_NAME, MODEL_VERSION, WEIGHTS_FILE, verify_model

_OPSET = 17
_CONTRIB = "com.microsoft"


def _import_backend():
    try:
        import onnxruntime  # first: it is the one more often missing, and onnx is slow to import
        import onnx  # noqa: F401  (build_encoder_graph needs it)
    except ImportError:
        raise BackendUnavailable(
            "the minilm-onnx embedder needs onnxruntime and onnx: pip install 'kbgraph[fast]' "
            "(or use the default numpy embedder, 'minilm')"
        ) from None
    return onnxruntime


class OnnxMiniLMEmbedder:
    """Same name and version as the numpy embedder: the vectors are interchangeable."""

    name = MODEL_NAME
    version = MODEL_VERSION
    dim = MODEL_DIM

    def __init__(self, folder: Path | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, threads: int | None = None):
        onnxruntime = _import_backend()
        self.folder = verify_model(folder)
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.tokenizer = MiniLMTokenizer(self.folder)
        config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
        graph = build_encoder_graph(load_tensors(self.folder / WEIGHTS_FILE), config)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or usable_cpus()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # warnings about unused initialisers are noise here
        self.session = onnxruntime.InferenceSession(
            graph.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return empty_result(self.dim)
        token_ids = self.tokenizer.encode(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for positions in length_sorted_batches(token_ids, self.batch_size, self.batch_tokens):
            ids, mask = pad([token_ids[i] for i in positions])
            (states,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask.astype(np.int32)})
            maskf = mask.astype(np.float32)
            summed = np.matmul(maskf[:, None, :], states)[:, 0, :]
            out[positions] = summed / np.maximum(maskf.sum(axis=1, keepdims=True), np.float32(1e-9))
        return normalise_rows(out)


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
