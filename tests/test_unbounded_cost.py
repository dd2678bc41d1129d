"""Bounded cost (issue 18): a short prefix, or a note of many links, costs about what one pass over
the data costs, never that pass once per section or per link.

The bounds are relative to a baseline measured in the same test on the same data (one full ranking,
or the same work at a tenth of the size), with generous factors: before the fixes each was off by
two orders of magnitude."""

from __future__ import annotations

import random
import re

import pytest

from kbgraph.access import LOCAL
from kbgraph.errors import InvalidInput
from kbgraph.entities.mentions import Form, MentionMatcher, find_document_mentions
from kbgraph.model import Link
from kbgraph.search.query import parse_query
from kbgraph.store.base import DocFilter
from kbgraph.store.sqlite import search as sqlite_search
from kbgraph.store.sqlite.store import SqliteStore

from .store_contract.text_builders import note
from .timing import fastest


def _prefix_heavy_store(notes: int = 60, sections: int = 8) -> tuple[SqliteStore, list[int]]:
    """Notes whose sections are full of different words starting with "a": a prefix `a*` expands to
    some 3,000 indexed words, as it does on the KEP vault."""
    rng = random.Random(18)
    letters = "bcdefghijklmnopqrstuvwxyz"
    words = sorted({"a" + "".join(rng.choice(letters) for _ in range(rng.randint(3, 7))) for _ in range(3000)})
    store = SqliteStore.open(":memory:")
    ids = [note(store, f"n{i}.md", *((("Part", str(j)), " ".join(rng.sample(words, 40)))
                                     for j in range(sections))) for i in range(notes)]
    return store, ids


def test_a_short_prefix_is_matched_in_one_pass_not_once_per_section(monkeypatch):
    monkeypatch.setattr(sqlite_search, "MAX_PREFIX_WORDS", 10_000)  # `a*` here stands for ~3,000 words
    store, ids = _prefix_heavy_store()
    query = parse_query("a*")
    ranking = fastest(lambda: store.ranked_chunks(LOCAL, query, DocFilter(), 10))  # one full match, ranked
    matched: set[int] = set()
    placing = fastest(lambda: matched.update(store.matching_chunks(query, ids)))
    chunk_ids = sorted(matched)
    assert len(chunk_ids) == 60 * 8  # every section matches: the answer did not change
    snippets = fastest(lambda: store.snippets(query, chunk_ids[:50]))
    # Before: FTS5 ran the prefix query again for each listed section (480 and 50 times).
    assert placing < 10 * ranking + 0.05, (placing, ranking)
    assert snippets < 10 * ranking + 0.05, (snippets, ranking)


def test_prefixes_that_together_stand_for_too_many_words_are_refused_before_they_run(monkeypatch):
    """The cap is on the whole query: each prefix alone fits, together they do not (before: three
    one-letter prefixes on the KEP vault cost ~0.4 s, one full prefix pass each in every search pass)."""
    monkeypatch.setattr(sqlite_search, "MAX_PREFIX_WORDS", 2_000)
    store, _ = _prefix_heavy_store(notes=20)  # ~3,000 words that begin with "a", ~120 with each "ab", "ac"…
    assert store.ranked_chunks(LOCAL, parse_query("ab* ac*"), DocFilter(), 10)  # together well under the cap
    many = " ".join(f"a{letter}*" for letter in "bcdefghijklmnopqrstuvwxy")  # 24 x ~120 words
    with pytest.raises(InvalidInput, match=r"prefixes stand for [\d,]+ indexed words together \(ab\* \("):
        store.ranked_chunks(LOCAL, parse_query(many), DocFilter(), 10)
    with pytest.raises(InvalidInput):
        store.ranked_docs(LOCAL, parse_query("ab* -a*"), DocFilter(), 10)  # an excluded prefix expands too


def _linked_note(links: int) -> tuple[list[tuple[int, int, str]], list[Link]]:
    """A note of one list item per link, `- see [[Person k]] about item i`, in sections of 100 items:
    (chunk id, start, text) of its sections and its links (offsets in the body)."""
    lines = [f"- see [[Person {i % 50}]] about item {i}" for i in range(links)]
    chunks, found, at = [], [], 0
    for first in range(0, links, 100):
        text = "\n".join(lines[first:first + 100]) + "\n"
        chunks.append((len(chunks) + 1, at, text))
        for line_start in (m.start() for m in re.finditer(r"(?m)^- ", text)):
            start = at + line_start + len("- see ")
            end = text.index("]]", start - at) + at + 2
            found.append(Link(text[start - at + 2:end - at - 2], None, start, end, "wikilink"))
        at += len(text)
    return chunks, found


def test_a_note_of_many_links_costs_linear_time_in_its_links():
    matcher = MentionMatcher([Form(k, f"Person {k}", "name") for k in range(50)])

    def mentions(links: int) -> float:
        chunks, found = _linked_note(links)
        resolve = {f"Person {k}": k for k in range(50)}.get

        def run():
            mentions, _ = find_document_mentions(chunks, found, 0, matcher, lambda link: resolve(link.target), set())
            assert len(mentions) == links and all(m.start == link.start for (_, m), link in zip(mentions, found))
        return fastest(run)

    small, large = mentions(500), mentions(8000)
    # 16 times the links: linear work is ~16x, the span check per name found made it ~256x.
    assert large < 64 * small + 0.05, (small, large)


def test_placing_finds_the_same_query_words_without_cutting_every_section():
    """_best_chunks looks for the query's words instead of cutting each section into words (90% of
    placing 50 KEP notes); it must find exactly the words the cut found, in any text."""
    from kbgraph.search.hits import _WORD, _query_words_in, standing_alone

    rng = random.Random(7)
    pieces = ["kafka", "Kafka", "KAFKA", "kafkas", "a", "t", "the", "_kafka", "kafka_", "k8s", "straße", "STRASSE",
              "İstanbul", "istanbul", "naïve", "naive", "über", "é", "2026", "-", " ", "\n", ".", "__", "ﬁle", "file"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) + rng.choice(["", " ", "_", "-"]) for _ in range(rng.randint(0, 12)))
        words = {w.casefold() for w in rng.sample(pieces[:20], 3) if _WORD.fullmatch(w)}
        cut = words.intersection(w.casefold() for w in _WORD.findall(text))
        assert _query_words_in(text, standing_alone(words)) == cut, text
