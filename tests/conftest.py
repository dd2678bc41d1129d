"""Shared fixtures: a real copy of the bundled sample vault, and an indexed store over it."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
SAMPLE_VAULT = REPO / "examples" / "vault"
# What a vault folder holds besides the user's notes. `make demo` indexes examples/vault in place, so the
# repository's copy may carry an index (with vectors) that no test may start from.
VAULT_STATE = (".kbgraph",)

# The suite indexes with the deterministic fake embedder (milliseconds, no model files); tests of the
# real model ask for it by name. KBG_EMBEDDER overrides kbgraph.toml's [search] embedder for users too.
os.environ["KBG_EMBEDDER"] = "fake"


def _temp_files_in_memory() -> None:
    """Tests' temporary folders on tmpfs (/dev/shm) where there is one and the runner chose no place.

    The suite opens and closes SQLite files thousands of times, and on a disk each close's checkpoint
    waits for fsync (~30 ms a file on this project's machines, more than most tests' own work); on tmpfs
    fsync returns at once. Nothing here tests durability against power loss, which no test could.
    TMPDIR, --basetemp and PYTEST_DEBUG_TEMPROOT still win."""
    shm = "/dev/shm"
    if "TMPDIR" not in os.environ and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        tempfile.tempdir = shm


_temp_files_in_memory()

# No example of a property test may fail for being slow: CI runs on two cores shared with other work, where
# hypothesis's 200 ms default deadline failed a 1 ms governance property (test_governance.py) at random.
# Tests that want their own settings (deterministic_settings below) still set them.
settings.register_profile("kbgraph", deadline=None)
settings.load_profile("kbgraph")


def _working_tree_state() -> tuple[list[tuple[str, int, int]], list[str]] | None:
    """Every file under examples/ (ignored ones too: an index there is ignored by git) with its size and
    mtime, and the repository's new untracked files; None where the repository is not a git checkout."""
    files = sorted((str(p.relative_to(REPO)), p.stat().st_size, p.stat().st_mtime_ns)
                   for p in (REPO / "examples").rglob("*") if p.is_file())
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO,
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return files, sorted(line[3:] for line in done.stdout.splitlines() if line.startswith("??"))


def pytest_sessionstart(session) -> None:
    # Once per run, in the process that owns the run (not in each xdist worker).
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_TREE_KEY] = _working_tree_state()


def pytest_sessionfinish(session, exitstatus) -> None:
    """Tests never write into the repository's working tree: a run that did fails, naming what changed."""
    before = session.config.stash.get(_TREE_KEY, None)
    if before is None:
        return
    after = _working_tree_state()
    if after is not None and after != before:
        changed = sorted(set(before[0]) ^ set(after[0])) + sorted(set(before[1]) ^ set(after[1]))
        names = sorted({item[0] if isinstance(item, tuple) else item for item in changed})
        writer = session.config.get_terminal_writer()
        writer.line()
        writer.line(
            "the tests changed the repository's working tree (tests write only under tmp_path): "
            + ", ".join(names[:10]), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_TREE_KEY = pytest.StashKey[object]()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A fresh copy of examples/vault (without any index) to index and modify."""
    return copy_sample(tmp_path / "vault")


@pytest.fixture(scope="session")
def indexed_sample(tmp_path_factory) -> Path:
    """The sample vault indexed once for the whole session (`kbg index`, which calls index_vault).

    Indexing costs ~10x copying a file tree, so fixtures copy this folder, index included, instead
    of indexing again. Never write here: a test that only reads may use it through `shared_sample`,
    and the session fails at its end if its notes or its index changed.
    """
    import json

    root = copy_sample(tmp_path_factory.mktemp("sample") / "vault")
    result = run_kbg("index", "--vault", str(root), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == 0, report
    before = _index_digest(root)
    yield root
    assert _index_digest(root) == before, "a test wrote into the shared indexed sample vault: give it a copy"


@pytest.fixture(scope="session")
def indexed_sample_unmapped(tmp_path_factory) -> Path:
    """The sample vault with the default frontmatter relations turned off, indexed once: for tests of
    relating, unrelating and suggestions that count relations one by one, where `reports_to:` and
    `team:` keys turning into relations of their own would only be noise."""
    root = copy_sample(tmp_path_factory.mktemp("unmapped") / "vault")
    with open(root / "kbgraph.toml", "a", encoding="utf-8") as handle:
        handle.write("\n[relations.frontmatter]\ndefaults = false\n")
    result = run_kbg("index", "--vault", str(root), "--json")
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture
def unmapped_vault(tmp_path: Path, indexed_sample_unmapped: Path) -> Path:
    """A fresh copy of the indexed sample vault without default frontmatter relations."""
    return copy_indexed(indexed_sample_unmapped, tmp_path / "vault")


def _index_digest(root: Path) -> tuple[dict[str, str], str]:
    """The user files' hashes and a hash of the index's rows (read-only, so reading changes nothing)."""
    import sqlite3

    db = sqlite3.connect(f"file:{root / '.kbgraph' / 'index.db'}?mode=ro", uri=True)
    try:
        rows = hashlib.sha256("\n".join(db.iterdump()).encode()).hexdigest()
    finally:
        db.close()
    return tree_digest(root), rows


def copy_sample(target: Path, source: Path | None = None) -> Path:
    """A copy of the sample vault's notes (source: examples/vault), never the state a run left in it."""
    shutil.copytree(source or SAMPLE_VAULT, target, ignore=shutil.ignore_patterns(*VAULT_STATE))
    return target


def copy_indexed(source: Path, target: Path) -> Path:
    """A copy of an indexed vault, index included (copy2 keeps mtimes, so nothing looks changed).

    Only of a vault a test indexed: the repository's examples/ has whatever index `make demo` left there."""
    if Path(source).resolve().is_relative_to(REPO / "examples"):
        raise ValueError(f"copy_indexed({source}): a repository folder; copy its notes with copy_sample")
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("index.db-shm"))
    return target


@pytest.fixture
def shared_sample(indexed_sample: Path) -> Path:
    """The session's indexed sample vault itself, for a test that only reads it (checked at session end)."""
    return indexed_sample


@pytest.fixture
def indexed(tmp_path: Path, indexed_sample: Path):
    """(vault path, open store) on a fresh copy of the fully indexed sample vault."""
    from kbgraph.store import open_store

    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    store = open_store(vault)
    yield vault, store
    store.close()


def tree_digest(root: Path) -> dict[str, str]:
    """Hashes of every user file under root (the index folder excluded)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if ".kbgraph" in path.parts or not path.is_file() or path.is_symlink():
            continue
        out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_kbg(*args: str, cwd: Path | None = None, env: dict | None = None, subprocess_: bool = False):
    """Run `kbg` through its entry point, kbgraph.cli.app:main, and capture what it prints.

    In-process by default (fast); subprocess_=True runs the installed console script itself.
    KBG_VAULT from the outer environment never leaks in: only env given here applies.
    """
    if subprocess_:
        return _run_subprocess(args, cwd, env)
    import contextlib
    import io

    from kbgraph.cli import app as cli_app
    from kbgraph.cli import output

    output._console = None  # a fresh console bound to the captured stdout
    out, err = io.StringIO(), io.StringIO()
    saved_env = {k: os.environ.get(k) for k in ("KBG_VAULT", "COLUMNS", *(env or {}))}
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    os.environ.pop("KBG_VAULT", None)
    os.environ["COLUMNS"] = "200"
    os.environ.update(env or {})
    code = 0
    try:
        if cwd:
            os.chdir(cwd)
        sys.argv = ["kbg", *args]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli_app.main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        output._console = None
    return Result(code, out.getvalue(), err.getvalue())


def _run_subprocess(args, cwd, env):
    full_env = {**os.environ, "COLUMNS": "200"}
    full_env.pop("KBG_VAULT", None)
    full_env.update(env or {})
    entry = Path(sys.executable).parent / "kbg"
    command = [str(entry)] if entry.exists() else [sys.executable, "-m", "kbgraph.cli.app"]
    return subprocess.run([*command, *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=120)


def fast(n: int):
    """Deterministic, deadline-free hypothesis settings with n examples (no example database)."""
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
    )


@pytest.fixture
def indexed_vault(tmp_path: Path, indexed_sample: Path) -> Path:
    """A fresh copy of the sample vault, indexed through the CLI (a copy of the session's one)."""
    return copy_indexed(indexed_sample, tmp_path / "vault")


def kbg(vault: Path, *args: str, code: int = 0):
    """`kbg ARGS --vault VAULT --json`, checked for exit code `code`; the parsed JSON (None if empty)."""
    import json

    result = run_kbg(*args, "--vault", str(vault), "--json")
    assert result.returncode == code, (result.stdout, result.stderr)
    return json.loads(result.stdout) if result.stdout.strip() else None
