"""Bad input of issue 18 not covered elsewhere: a vault on a path with spaces and a newline, and an
index written by a newer kbgraph (refused with what to do, the index file unchanged)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from ..conftest import kbg, run_kbg


def test_a_vault_on_a_path_with_spaces_and_a_newline_indexes_searches_and_relates(tmp_path):
    root = tmp_path / "my notes\nweek 1" / "vault"
    (root / "people").mkdir(parents=True)
    (root / "people" / "ana lima.md").write_text("---\ntype: person\nname: Ana Lima\n---\n# Ana Lima\n\nKafka.\n")
    (root / "people" / "ben.md").write_text("---\ntype: person\nname: Ben Okafor\n---\n# Ben Okafor\n")
    assert kbg(root, "index")["indexed"] == 2
    assert kbg(root, "entity", "relate", "Ana Lima", "--type", "reports-to", "--target", "Ben Okafor")
    assert "reports-to" in (root / "people" / "ana lima.md").read_text()
    hits = kbg(root, "search", "kafka")
    assert [h["path"] for h in hits["hits"]] == ["people/ana lima.md"]


def test_an_index_written_by_a_newer_kbgraph_is_refused_and_left_as_it_was(tmp_path):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "n.md").write_text("# Note\n\nKafka.\n")
    kbg(root, "index")
    index = root / ".kbgraph" / "index.db"
    db = sqlite3.connect(index)
    db.execute("INSERT INTO migrations (name, applied_at) VALUES ('m999_future', 'now')")
    db.commit()
    db.close()
    (root / "n.md").write_text("# Note\n\nKafka, changed.\n")
    before = hashlib.sha256(index.read_bytes()).hexdigest()
    for args in (("index",), ("search", "kafka"), ("entity", "list")):
        result = run_kbg(*args, "--vault", str(root))
        assert result.returncode != 0, args
        assert "newer kbgraph" in result.stderr and "upgrade kbgraph" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert hashlib.sha256(index.read_bytes()).hexdigest() == before
