"""Embedders by name: the built-in ones and any a caller registers, made through one factory.

`load_embedder(None)` is the default model: all-MiniLM-L6-v2 quantised to int8 on
onnxruntime ("minilm"), ~2x the fp32 speed at the same retrieval quality (docs/embeddings.md);
where onnxruntime is missing it falls back to the numpy forward pass with a one-line message. Tests register or name "fake" the same
way a real embedder is chosen, so the code under test cannot tell the difference.
Factories import their backend only when called: naming an embedder costs nothing.
"""

from __future__ import annotations

import logging
from typing import Callable

from ..errors import BackendUnavailable, ConfigError
from .base import Embedder

DEFAULT_EMBEDDER = "minilm"

_FACTORIES: dict[str, Callable[..., Embedder]] = {}


def register_embedder(name: str, factory: Callable[..., Embedder], replace: bool = False) -> None:
    """Make `load_embedder(name, **options)` call `factory(**options)`."""
    if name in _FACTORIES and not replace:
        raise ValueError(f"an embedder named {name!r} is already registered")
    _FACTORIES[name] = factory


def available_embedders() -> list[str]:
    return sorted(_FACTORIES)


def load_embedder(name: str | None = None, **options) -> Embedder:
    """The embedder registered as `name` (None: the default, all-MiniLM-L6-v2 int8, see `_minilm`).

    Raises ConfigError for an unknown name, ModelMissing / ModelCorrupt when a model's
    files are not usable, BackendUnavailable when an optional backend is not installed.
    """
    key = name or DEFAULT_EMBEDDER
    factory = _FACTORIES.get(key)
    if factory is None:
        raise ConfigError(f"unknown embedder {key!r}; choose one of {', '.join(available_embedders())}")
    return factory(**options)


def _minilm(**options) -> Embedder:
    """int8 on onnxruntime where it can run, else the numpy forward pass (its own model tag, so
    an index made by the other one is re-embedded rather than mixed)."""
    global _FALLBACK_SAID
    try:
        return _minilm_int8(**options)
    except BackendUnavailable as exc:
        if not _FALLBACK_SAID:  # one line per process: logging's last-resort handler prints just the message
            _FALLBACK_SAID = True
            logging.getLogger("kbgraph.embed").warning("embedding on numpy, about 3x slower: %s", exc)
        return _minilm_numpy(**options)


def _minilm_numpy(**options) -> Embedder:
    from .minilm import MiniLMEmbedder

    return MiniLMEmbedder(**options)


def _minilm_int8(**options) -> Embedder:
    from .onnx_backend import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(precision="int8", **options)


def _minilm_onnx(**options) -> Embedder:
    from .onnx_backend import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(precision="fp32", **options)


def _fake(**options) -> Embedder:
    from .fake import FakeEmbedder

    return FakeEmbedder(**options)


_FALLBACK_SAID = False

register_embedder("minilm", _minilm)
register_embedder("minilm-int8", _minilm_int8)
register_embedder("minilm-numpy", _minilm_numpy)
register_embedder("minilm-onnx", _minilm_onnx)
register_embedder("fake", _fake)
