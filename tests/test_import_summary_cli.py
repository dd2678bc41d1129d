"""kbg import's line names everything the file restored: an import that brought back only a fact, an
unlink and resolution answers said 'imported 0 relations (0 new to this vault) and 0 asserted entities',
as if it had done nothing."""

from __future__ import annotations

from pathlib import Path

from .conftest import copy_indexed, run_kbg


def test_import_says_it_restored_facts_unlinks_and_answers(tmp_path: Path, indexed_sample: Path):
    source = copy_indexed(indexed_sample, tmp_path / "source")
    v = ("--vault", str(source))
    assert run_kbg("fact", "add", "Arjun Mehta", "--kind", "interest", "fountain pens", *v).returncode == 0
    assert run_kbg("entity", "unlink", "Ana Lima", "meetings/2026/04/16/payments-provider-call.md", *v).returncode == 0
    export = tmp_path / "kb.jsonl"
    assert run_kbg("export", "--format", "jsonl", "-o", str(export), *v).returncode == 0

    target = copy_indexed(indexed_sample, tmp_path / "target")
    result = run_kbg("import", str(export), "--vault", str(target))
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith("imported "), line
    also = line.split("; also ", 1)[1]
    assert "1 unlink" in also and "1 fact" in also and "resolution decisions (" in also, line
    again = run_kbg("import", str(export), "--vault", str(target)).stdout
    assert "1 fact" not in again and "(0 new)" in again  # facts count those added; decisions say how many were new
