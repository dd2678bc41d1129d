"""Text and graph first: `kbg index` commits everything text and graph search need before embedding,
embeds saving as it goes (an interrupted or failed embedding keeps what was saved, and the next run
resumes), `--embed later` and `kbg embed`, and a huge note that is saved and reported as the run goes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kbgraph.access import LOCAL
from kbgraph.config import load_config
from kbgraph.embed import FakeEmbedder, register_embedder
from kbgraph.ingest.embedding import embed_vault
from kbgraph.embed.stage import BATCH
from kbgraph.errors import StoreError
from kbgraph.ingest.pipeline import BATCH_BYTES, Pipeline, index_vault
from kbgraph.search import search
from kbgraph.store import open_store
from kbgraph.store.sqlite.store import SqliteStore

from .conftest import run_kbg

NOTES, SECTIONS = 40, 5  # 200 distinct sections: several model calls of BATCH texts


def _write_vault(root: Path) -> Path:
    (root / "people").mkdir(parents=True)
    (root / "people" / "ana-lima.md").write_text("---\ntype: person\nname: Ana Lima\n---\n# Ana Lima\n\nLeads Atlas.\n")
    for i in range(NOTES):
        body = "\n".join(f"## Part {k}\n\nAna Lima wrote item {i}-{k} about the gateway.\n" for k in range(SECTIONS))
        (root / f"note-{i:02d}.md").write_text(f"# Note {i}\n\n{body}")
    return root


class _Recording(FakeEmbedder):
    """The fake model (same name and version, so its vectors are the fake's), counting what it embeds;
    `stop_after` calls, it raises what `failure` says, as Ctrl-C would in the middle of a model call."""

    texts: list[str] = []
    calls = 0
    stop_after: int | None = None
    failure: type[BaseException] = KeyboardInterrupt
    on_first_call = None

    def embed(self, texts):
        if _Recording.calls == 0 and _Recording.on_first_call is not None:
            _Recording.on_first_call()
        if _Recording.stop_after is not None and _Recording.calls >= _Recording.stop_after:
            raise _Recording.failure()
        _Recording.calls += 1
        _Recording.texts.extend(texts)
        return super().embed(texts)


@pytest.fixture
def recording(monkeypatch):
    register_embedder("recording", lambda **o: _Recording(**o), replace=True)
    monkeypatch.setenv("KBG_EMBEDDER", "recording")
    _Recording.texts, _Recording.calls, _Recording.stop_after, _Recording.on_first_call = [], 0, None, None
    yield _Recording
    _Recording.stop_after, _Recording.on_first_call = None, None


def _missing_meta(root: Path) -> tuple[int, int]:
    """(vectors_missing as the index says, as counted)."""
    store = open_store(root)
    try:
        return int(store.get_meta("vectors_missing")), store.count_chunks_without_vectors()
    finally:
        store.close()


def test_text_and_graph_are_committed_and_announced_before_the_model_is_called(tmp_path, recording):
    root = _write_vault(tmp_path / "vault")
    events: list[tuple[str, int, int]] = []
    seen_first_call = {}

    def check_from_another_connection():
        seen_first_call["events"] = list(events)
        reader = open_store(root)  # another connection: sees only what was committed
        try:
            result = search(reader, "gateway item", config=load_config(root), access=LOCAL)
            seen_first_call["hits"] = len(result.hits)
            seen_first_call["notes"] = result.notes
            seen_first_call["entity"] = [e.name for e in reader.list_entities(__import__("kbgraph.access").access.LOCAL)]
            seen_first_call["missing"] = reader.get_meta("vectors_missing")
        finally:
            reader.close()

    recording.on_first_call = check_from_another_connection
    report = index_vault(root, progress=lambda *e: events.append(e))
    sections = NOTES * SECTIONS + 1
    stages = [e[0] for e in seen_first_call["events"]]
    assert "ready" in stages and stages.index("ready") < stages.index("embed")
    assert ("ready", NOTES + 1, sections) in seen_first_call["events"]
    assert ("embed", 0, sections) in seen_first_call["events"], "the bar's first event comes before the model"
    assert seen_first_call["hits"] > 0 and "Ana Lima" in seen_first_call["entity"]
    assert seen_first_call["missing"] == str(sections)
    assert "no vectors yet" in seen_first_call["notes"][0]
    assert report.ready is not None and report.ready.documents == NOTES + 1 and report.ready.vectors_missing == sections
    assert report.embedded == sections and report.vectors_missing == 0
    assert [e for e in events if e[0] == "embed"][-1] == ("embed", sections, sections)


def test_an_interrupted_embedding_keeps_what_it_saved_and_the_next_run_embeds_only_the_rest(tmp_path, recording):
    root = _write_vault(tmp_path / "vault")
    recording.stop_after = 2
    with pytest.raises(KeyboardInterrupt):
        index_vault(root)
    saved = 2 * BATCH
    sections = NOTES * SECTIONS + 1
    assert _missing_meta(root) == (sections - saved, sections - saved), "the count search reads is current"
    first = list(recording.texts)
    recording.stop_after = None
    store = open_store(root)
    try:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        result = search(store, "gateway item", config=load_config(root), access=LOCAL)
        assert result.hits and "vector" in result.signals
        assert result.notes == (f"{sections - saved:,} of {sections:,} sections have no vectors yet: hybrid "
                                "search uses text for them; run `kbg embed`",)
    finally:
        store.close()
    recording.texts = []
    report = index_vault(root)
    assert report.indexed == 0 and report.embedded == sections - saved and report.vectors_missing == 0
    assert len(recording.texts) == sections - saved
    assert not set(first) & set(recording.texts), "nothing is embedded twice"
    assert _missing_meta(root) == (0, 0)


def test_embed_later_stops_before_vectors_and_kbg_embed_makes_them(tmp_path, recording):
    root = _write_vault(tmp_path / "vault")
    sections = NOTES * SECTIONS + 1
    out = run_kbg("index", "--vault", str(root), "--embed", "later", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["embedded"] == 0 and report["vectors_missing"] == sections and recording.calls == 0
    assert report["ready"]["sections"] == sections and report["ready"]["documents"] == NOTES + 1
    human = run_kbg("index", "--vault", str(root), "--embed", "later")
    assert f"{sections:,} of {sections:,} sections have no vectors yet" in human.stdout
    found = run_kbg("search", "gateway", "--vault", str(root), "--json")
    assert json.loads(found.stdout)["hits"] and "no vectors yet" in json.loads(found.stdout)["notes"][0]

    recording.stop_after = 1  # `kbg embed` is resumable too: Ctrl-C after one call keeps it
    interrupted = run_kbg("embed", "--vault", str(root))
    assert interrupted.returncode == 130 and "run `kbg embed` again" in interrupted.stderr
    assert _missing_meta(root)[0] == sections - BATCH
    recording.stop_after = None
    done = run_kbg("embed", "--vault", str(root), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) | {"seconds": 0} == {"embedded": sections - BATCH, "vectors_missing": 0,
                                                         "model": "fake@1", "seconds": 0, "problems": []}
    assert len(recording.texts) == sections
    store = open_store(root)
    try:
        assert store.get_meta("similar_seen") is not None, "references by meaning follow the vectors"
    finally:
        store.close()
    again = run_kbg("embed", "--vault", str(root))
    assert again.returncode == 0 and again.stdout.startswith("embedded 0 sections")


def test_a_full_disk_while_embedding_is_one_line_and_leaves_text_search_working(tmp_path, recording, monkeypatch):
    root = _write_vault(tmp_path / "vault")
    real_put = SqliteStore.put_vectors
    puts = []

    def put_until_full(self, rows):
        puts.append(len(rows))
        if len(puts) > 1:
            raise sqlite3.OperationalError("database or disk is full")
        real_put(self, rows)

    monkeypatch.setattr(SqliteStore, "put_vectors", put_until_full)
    with pytest.raises(StoreError, match="disk holding the index is full"):
        index_vault(root)
    out = run_kbg("index", "--vault", str(root))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2 and "disk holding the index is full" in out.stderr
    sections = NOTES * SECTIONS + 1
    assert _missing_meta(root) == (sections - BATCH, sections - BATCH)
    store = open_store(root)
    try:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert search(store, "gateway item", config=load_config(root), mode="bm25", access=LOCAL).hits
    finally:
        store.close()
    monkeypatch.setattr(SqliteStore, "put_vectors", real_put)
    assert index_vault(root).vectors_missing == 0


def test_a_huge_note_is_reported_at_once_and_what_came_before_it_is_saved_first(tmp_path, monkeypatch):
    monkeypatch.setenv("KBG_EMBEDDER", "none")  # the documents stage is what is measured here
    root = tmp_path / "vault"
    root.mkdir()
    (root / "kbgraph.toml").write_text("[index]\nmax_file_mb = 20\n")
    for i in range(20):
        (root / f"a-{i:02d}.md").write_text(f"# Small {i}\n\nA short note about the gateway.\n")
    section = "## Part\n\n" + "Words about the gateway and its tokens. " * 50 + "\n\n"
    (root / "z-huge.md").write_text("# Huge\n\n" + section * (BATCH_BYTES // len(section) + 10))
    events: list[tuple[str, int, int]] = []
    when_huge_parsed = {}

    def look_when_the_huge_note_is_parsed(run):
        def hook(parsed):
            if parsed.path == "z-huge.md":
                reader = open_store(root)
                try:
                    when_huge_parsed["stored"] = reader.stats()["documents"]
                finally:
                    reader.close()
                when_huge_parsed["events"] = [e for e in events if e[0] == "documents"]
            return parsed
        run.parsed_hook.append(hook)

    pipeline = Pipeline.default().insert_before("documents", "look", look_when_the_huge_note_is_parsed)
    report = index_vault(root, pipeline=pipeline, progress=lambda *e: events.append(e))
    assert report.indexed == 21 and report.errors == 0
    assert when_huge_parsed["events"][0] == ("documents", 0, 21), "a first event before any file is read"
    assert when_huge_parsed["events"][-1] == ("documents", 20, 21)
    assert when_huge_parsed["stored"] == 20, "the notes read before the huge one were saved before it"
