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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Loaded on first use (PEP 562): importing a submodule (the embed stage, on every `kbg index`) runs this
# file, and eager imports here cost numpy (~60 ms) on runs that embed nothing.
_EXPORTS = {
    "Embedder": "base", "FakeEmbedder": "fake", "InstallResult": "install", "install_model": "install",
    "ModelStatus": "model_files", "model_dir": "model_files", "model_status": "model_files",
    "verify_model": "model_files", "DEFAULT_EMBEDDER": "registry", "available_embedders": "registry",
    "load_embedder": "registry", "register_embedder": "registry",
}

if TYPE_CHECKING:
    from .base import Embedder
    from .fake import FakeEmbedder
    from .install import InstallResult, install_model
    from .model_files import ModelStatus, model_dir, model_status, verify_model
    from .registry import DEFAULT_EMBEDDER, available_embedders, load_embedder, register_embedder

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value
