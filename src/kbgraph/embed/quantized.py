"""The int8 encoder: kbgraph's ONNX graph quantised once, cached beside the model files, checked at every load.

Quantising needs `onnx` and onnxruntime's quantisation tools (~1 s to import, ~2 s to run on
all-MiniLM-L6-v2); running the result needs onnxruntime alone. So the quantised graph is made
once (by `kbg model install`, or by the first load that finds none) and written as
`minilm-int8.onnx` next to model.safetensors, with a small JSON stamp beside it holding the
file's sha256, the weights it was made from and the recipe. Every load re-hashes the file
(23 MB, ~15 ms) against the stamp; a missing, damaged or stale file is rebuilt from the
verified weights when `onnx` is there, and otherwise is an error that names the file and the
fix (`kbg model install`).

The recipe: dynamic quantisation (activations quantised per batch at run time, so no
calibration data), QInt8 weights with one scale per output channel. Per channel kept
retrieval MRR on KEP title -> summary pairs at fp32's level where one scale per tensor lost
~0.02 (docs/embeddings.md). `DefaultTensorType` FLOAT is needed because kbgraph's graph has
contrib ops (Attention, SkipLayerNormalization) whose output types onnx's shape inference does
not know; without it the quantiser stops on "Unable to find data type for weight_name".
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

from ..errors import BackendUnavailable, ModelCorrupt
from .model_files import sha256_of, stat_key

INT8_FILE = "minilm-int8.onnx"
INT8_STAMP = "minilm-int8.onnx.json"
# Part of the model tag: bump it whenever the quantised vectors would change (another recipe,
# another quantiser), so indexes made with the old file are re-embedded.
RECIPE = "int8-per-channel-1"  # dynamic (activations quantised per batch), QInt8 weights
REBUILD_HINT = "install the model"  # the CLI words it as `kbg model install`, which rebuilds the file


def int8_model(folder: Path, source: str, build_graph: Callable[[], Any]) -> Path:
    """The path of a verified quantised graph in `folder`, made from `build_graph()` when needed.

    source: the sha256 of the weights `build_graph` reads; a cached file made from other
    weights is stale and rebuilt. Raises BackendUnavailable when the file must be (re)built and
    `onnx` is not installed, ModelCorrupt when it cannot be written where it belongs.
    """
    path = folder / INT8_FILE
    problem = _check(folder, source, trust_stat=True)
    if problem is None:
        return path
    try:
        write_int8_model(folder, source, build_graph)
    except BackendUnavailable as exc:
        if problem == "missing":
            raise
        raise ModelCorrupt(f"{path} is {problem} and cannot be rebuilt here ({exc})", hint=REBUILD_HINT) from None
    return path


def int8_status(folder: Path, source: str) -> str:
    """'ok', 'missing', 'damaged' or 'stale' (made from other weights or by another recipe)."""
    return _check(folder, source) or "ok"


def write_int8_model(folder: Path, source: str, build_graph: Callable[[], Any]) -> Path:
    """Quantise `build_graph()` into folder/INT8_FILE and stamp it (replacing both if present).

    The file and its stamp are each written under a temporary name and moved into place, so a
    crash leaves either the old pair or a file whose stamp does not match, which the next load
    rebuilds. Two processes building at once write the same bytes (the quantiser is
    deterministic), so either order of their moves leaves a matching pair.
    """
    onnx, quantize_dynamic, QuantType = _import_quantiser()
    path = folder / INT8_FILE
    with tempfile.TemporaryDirectory(prefix="kbg-int8-") as scratch:
        fp32, int8 = Path(scratch) / "fp32.onnx", Path(scratch) / "int8.onnx"
        onnx.save(build_graph(), str(fp32))
        with _quiet_quantiser():
            quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        stamp = {"file": INT8_FILE, "sha256": sha256_of(int8), "source": source, "recipe": RECIPE}
        try:
            _move_into(int8, path)
            _write_text(folder / INT8_STAMP, json.dumps({**stamp, "stat": stat_key(path)}))
        except OSError as exc:
            raise ModelCorrupt(f"cannot write the quantised model {path}: {exc.strerror or exc}",
                               hint="make the model folder writable, or set KBG_MODEL_DIR to a writable copy") from None
    return path


def _check(folder: Path, source: str, trust_stat: bool = False) -> str | None:
    """trust_stat: a file whose size, times and inode are those stamped when it was last hashed is
    taken as that file (loading a model for a query then skips hashing 23 MB, ~45 ms); a status
    check hashes it whatever the stamp says."""
    path = folder / INT8_FILE
    if not path.is_file():
        return "missing"
    try:
        stamp = json.loads((folder / INT8_STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "damaged"  # a file without a readable stamp cannot be trusted
    if not isinstance(stamp, dict) or stamp.get("source") != source or stamp.get("recipe") != RECIPE:
        return "stale"
    if trust_stat and stamp.get("stat") == stat_key(path):
        return None
    if stamp.get("sha256") != sha256_of(path):
        return "damaged"
    if trust_stat:  # hashed and sound: stamp its stat so the next load need not hash (best effort)
        with contextlib.suppress(OSError):
            _write_text(folder / INT8_STAMP, json.dumps({**stamp, "stat": stat_key(path)}))
    return None


def _import_quantiser():
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise BackendUnavailable(
            "making the int8 encoder needs onnx: pip install onnx==1.23.2"
        ) from None
    return onnx, quantize_dynamic, QuantType


@contextlib.contextmanager
def _quiet_quantiser():
    """The quantiser logs a 'consider pre-processing' advice to the root logger on every call;
    it is about image models and would reach the user as a stray WARNING line."""
    root = logging.getLogger()
    previous = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(previous)


def _move_into(source: Path, final: Path) -> None:
    partial = final.with_name(f"{final.name}.{os.getpid()}.partial")
    try:
        with open(source, "rb") as src, open(partial, "wb") as dst:
            while block := src.read(1 << 20):
                dst.write(block)
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)


def _write_text(final: Path, text: str) -> None:
    partial = final.with_name(f"{final.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)
