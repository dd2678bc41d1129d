"""Text embeddings behind one small interface.

    from kbgraph.embed import load_embedder
    embedder = load_embedder()            # all-MiniLM-L6-v2, int8 on onnxruntime, offline
    vectors = embedder.embed(["a note"])  # (1, 384) float32, unit rows

Names: "minilm" (default: "minilm-int8", or "minilm-numpy" where onnxruntime is missing),
"minilm-int8", "minilm-numpy" (fp32), "minilm-onnx" (fp32 on onnxruntime, needs onnx),
"fake" (tests). docs/embeddings.md says how they compare.
Model files are fetched only by `kbg model install` (see install.py); loading never
touches the network.
"""

from .base import Embedder
from .fake import FakeEmbedder
from .install import InstallResult, install_model
from .model_files import ModelStatus, model_dir, model_status, verify_model
from .registry import DEFAULT_EMBEDDER, available_embedders, load_embedder, register_embedder

__all__ = [
    "DEFAULT_EMBEDDER", "Embedder", "FakeEmbedder", "InstallResult", "ModelStatus", "available_embedders",
    "install_model", "load_embedder", "model_dir", "model_status", "register_embedder", "verify_model",
]
