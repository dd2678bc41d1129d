"""Tests never start from, nor write into, the repository's working tree.

The README's two commands run in order: `make demo` indexes examples/vault in place (with vectors), then
`make test` runs. A fixture that copied examples/vault with that index made tests of a vector-free index see
vectors (tests/test_startup.py failed after `make demo`)."""

from __future__ import annotations

import re

import pytest

from .conftest import REPO, SAMPLE_VAULT, copy_indexed, copy_sample


def test_a_copy_of_the_sample_leaves_behind_the_index_make_demo_built_in_it(indexed_sample, tmp_path):
    # The sample as `make demo` leaves it: notes plus a real index with vectors, built by `kbg index`.
    demo_built = copy_indexed(indexed_sample, tmp_path / "examples-vault")
    assert (demo_built / ".kbgraph" / "index.db").is_file()
    copy = copy_sample(tmp_path / "copy", demo_built)
    assert not (copy / ".kbgraph").exists()
    assert sorted(p.name for p in copy.iterdir()) == sorted(p.name for p in demo_built.iterdir() if p.name != ".kbgraph")


def test_copying_a_repository_folder_index_included_is_refused(tmp_path):
    with pytest.raises(ValueError, match="copy_sample"):
        copy_indexed(SAMPLE_VAULT, tmp_path / "vault")
    assert not (tmp_path / "vault").exists()


def test_every_copy_of_a_repository_folder_in_the_tests_leaves_its_state_behind():
    """A copytree of examples/ (SAMPLE_VAULT, a path naming "examples") names the index among what it ignores."""
    offenders = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        if path.name == "test_repo_state.py":  # its refusal test calls copy_indexed(SAMPLE_VAULT) on purpose
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            copied = re.search(r"copytree\(([^,]*)", line)
            if copied and re.search(r"SAMPLE_VAULT|examples", copied.group(1)) and not re.search(r"\.kbgraph|VAULT_STATE", line):
                offenders.append(f"{path.relative_to(REPO)}:{number}")
            if re.search(r"copy_indexed\((SAMPLE_VAULT|[^,]*examples)", line):
                offenders.append(f"{path.relative_to(REPO)}:{number}")
    assert offenders == []
