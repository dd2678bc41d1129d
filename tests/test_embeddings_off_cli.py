"""With embeddings off ([search] embedder = "none", or KBG_EMBEDDER=none) there is nothing to embed: the
CLI says so instead of asking for a `kbg embed` that would make no vector, and a background embedding is
refused instead of starting a process that does nothing and reports only that it finished."""

from __future__ import annotations

from pathlib import Path

from kbgraph.cli.background_words import status_line
from kbgraph.model import EmbedStatus

from .conftest import run_kbg

OFF = {"KBG_EMBEDDER": "none"}


def test_index_with_embeddings_off_does_not_ask_for_kbg_embed(indexed_vault: Path):
    (indexed_vault / "notes" / "new.md").write_text("# New\n\nA fresh note about Kafka.\n", encoding="utf-8")
    result = run_kbg("index", "--vault", str(indexed_vault), "--full", env=OFF)
    assert result.returncode == 0, result.stderr
    assert "kbg embed" not in result.stdout, result.stdout  # was: "... no vectors yet: ...; run `kbg embed`"


def test_kbg_embed_with_embeddings_off_says_they_are_off(indexed_vault: Path):
    result = run_kbg("embed", "--vault", str(indexed_vault), env=OFF)
    assert result.returncode == 0, result.stderr
    # was: "embedded 0 sections" then "... no vectors yet: ...; run `kbg embed`", the command just run
    assert result.stdout.strip() == ('embeddings are off ([search] embedder = "none"): nothing to embed; '
                                     "search uses text and the graph")


def test_a_background_embedding_with_embeddings_off_is_refused_and_starts_nothing(indexed_vault: Path):
    result = run_kbg("embed", "--background", "--vault", str(indexed_vault), env=OFF)
    assert result.returncode == 1
    assert result.stderr.startswith('error: embeddings are off ([search] embedder = "none"): there is nothing to '
                                    "embed; set [search] embedder in kbgraph.toml"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (indexed_vault / ".kbgraph" / "embed.log").exists()  # was: a runner started, "done: 0 sections"
    status = run_kbg("embed", "--status", "--vault", str(indexed_vault), env=OFF)
    assert status.stdout.strip() == "no background embedding has been started on this vault"


def test_a_starting_embedding_without_a_pid_yet_is_said_to_be_starting():
    status = EmbedStatus(running=True, state="starting", pid=None, done=0, total=0, rate=None, seconds_left=None,
                         started_at="2026-01-01T00:00:00+00:00", updated_at=None, log="/v/.kbgraph/embed.log")
    line = status_line(status)
    assert "None" not in line and line == "starting: sections not counted yet"  # was: "running (pid None): ..."
