"""Relating documents: compute and store references, continues and duplicate-of, incrementally.

What changed is found by comparing each document with what the stage last saw of it
(doc_fingerprints): new, rewritten, moved or renamed documents, and fingerprints whose document is
gone. Only the relations those changes can touch are computed again, each kind for its own set:

- references: the changed documents; documents whose links look up a key (path, file name, title)
  that a changed or removed document gained or lost; and documents whose text may name such a
  document by a title or file name it gained or lost (found through the full-text index).
- continues between chunks: the changed documents (it depends on nothing else).
- continues along a dated series: every member of a series a changed or removed document was or is in.
- duplicate-of: the changed documents, the documents with the same text hash (old or new), those
  whose SimHash is near a changed one (compared within shared bands only), and the sources of
  duplicate-of relations to a changed document.

Everything happens in one transaction: a run killed half way leaves the last complete state, and
the fingerprints still say what to do next time.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections import Counter
from dataclasses import dataclass

from . import simhash as sh
from .edges import LINK_SCORE, MENTION_SCORE, NEAR_DUPLICATE_CAP, Edge
from .names import NameIndex, Phrases, distinctive, doc_link_keys, doc_names, link_keys, name_words
from .structure import series_edges, series_key, split_sections
from .words import Words, read_words
from ..model import Term, TextQuery
from ..store.base import Store

_NAME_WORD = re.compile(r"[^\W_]+")  # a name's words, as the phrase query takes them

MIN_WORDS = 50  # near-duplicates only between documents this long (a SimHash of fewer words is noise)
EXACT_MIN_WORDS = 5
MAX_DIFFERING_BITS = 6  # SimHash similarity >= 0.90 (1 - 6/64)
MIN_SHARED_SHINGLES = 0.7  # and the actual 3-word shingles mostly shared: unrelated texts on one template are not


@dataclass
class Texts:
    """Documents' texts (their chunks joined by a blank line, UTF-8) and their words."""

    ids: list[int]
    data: list[bytes]
    chunk_starts: list[list[int]]  # byte offset of each chunk in its document's text
    chunk_ids: list[list[int]]
    words: Words

    @classmethod
    def read(cls, ids: list[int], chunks: dict[int, list[dict]]) -> "Texts":
        data, starts, chunk_ids = [], [], []
        for doc_id in ids:
            parts = [c["text"] for c in chunks.get(doc_id, [])]
            offsets, at = [], 0
            for part in parts:
                offsets.append(at)
                at += len(part) + 2
            data.append(b"\n\n".join(parts))
            starts.append(offsets)
            chunk_ids.append([c["id"] for c in chunks.get(doc_id, [])])
        return cls(ids, data, starts, chunk_ids, read_words(data))

    def chunk_at(self, text: int, word: int) -> int | None:
        offset = int(self.words.starts[word] - self.words.offsets[text])
        at = bisect.bisect_right(self.chunk_starts[text], offset) - 1
        return self.chunk_ids[text][at] if at >= 0 else None


def relate(store: Store, changed: list[dict], removed: list[dict], full: bool) -> None:
    ids = [c["id"] for c in changed]
    context = _context(store.docgraph_names())
    by_id = {c["id"]: c for c in changed}
    prints, references, splits, keys = [], [], [], {}
    for batch, chunks in _batches(store, ids):
        texts = Texts.read(batch, chunks)
        prints += fingerprints([by_id[i] for i in batch], texts)
        splits += [e for doc_id in batch for e in split_sections(doc_id, chunks.get(doc_id, []))]
        references += reference_edges(store, context, texts, chunks, keys)
    store.drop_fingerprints([r["doc_id"] for r in removed])
    store.save_fingerprints(prints)
    store.replace_link_keys(keys)
    if full:
        refs = series = dups = set(ids)
    else:
        before = removed + [c["old"] for c in changed if c["old"]]
        refs, series, dups = _affected(store, ids, before, prints, context.phrases)
    for batch, chunks in _batches(store, sorted(refs - set(ids))):
        references += reference_edges(store, context, Texts.read(batch, chunks), chunks)
    store.delete_doc_relations(refs, "references")
    store.add_doc_relations(references)
    store.delete_doc_relations(ids, "continues", chunk_level=True)
    store.add_doc_relations(splits)
    _series(store, series)
    _duplicates(store, dups)


BATCH_BYTES = 1 << 20  # documents read and analysed together: bounded memory on a vault of any size


def _batches(store: Store, ids: list[int]):
    """(ids, their chunks) in groups of about BATCH_BYTES of text."""
    sizes = store.doc_sizes(ids)
    batch, total = [], 0
    for doc_id in ids:
        batch.append(doc_id)
        total += sizes.get(doc_id, 0)
        if total >= BATCH_BYTES:
            yield batch, store.docgraph_chunks(batch)
            batch, total = [], 0
    if batch:
        yield batch, store.docgraph_chunks(batch)


@dataclass(frozen=True)
class _Context:
    names: NameIndex
    phrases: Phrases
    paths: dict[int, str]


_LAST_CONTEXT: list[tuple[tuple, _Context]] = []  # the last (documents' names, context) this process built


def _context(docs: list[tuple[int, str, str]]) -> _Context:
    """The name indexes over every document's path and title. They are a function of those names only,
    and a page edit rarely changes one: a process that writes page after page (the HTTP API, MCP, an
    agent's library calls) builds them once, not once per write (~35 ms at 2,000 notes)."""
    key = tuple(map(tuple, docs))
    last = next(iter(_LAST_CONTEXT), None)  # read once: an API thread may replace it meanwhile
    if last is not None and last[0] == key:
        return last[1]
    context = _Context(NameIndex(docs), Phrases(docs), {doc_id: path for doc_id, path, _ in docs})
    _LAST_CONTEXT[:] = [(key, context)]
    return context


def fingerprints(changed: list[dict], texts: Texts) -> list[dict]:
    """What doc_fingerprints keeps of each changed document."""
    counts = texts.words.count(len(changed)).tolist()
    out = []
    for doc, data, fingerprint, count in zip(changed, texts.data, sh.simhashes(texts.words, len(changed)), counts):
        out.append({
            "doc_id": doc["id"], "path": doc["path"], "title": doc["title"], "content_hash": doc["content_hash"],
            "indexed_at": doc["indexed_at"], "date": doc["date"], "series": series_key(doc["path"], doc["date"]),
            "text_hash": hashlib.blake2b(data, digest_size=16).hexdigest() if count >= EXACT_MIN_WORDS else None,
            "simhash": sh.to_signed(fingerprint) if count >= MIN_WORDS else None, "words": count,
        })
    return out


def _affected(store: Store, ids: list[int], before: list[dict], after: list[dict], phrases: Phrases) -> tuple[set, set, set]:
    """The documents whose references, series links and duplicates may have changed."""
    states = before + after
    old_keys, new_keys = ({(s["doc_id"], k) for s in side for k in doc_link_keys(s["path"], s["title"])}
                          for side in (before, after))
    refs = set(ids) | store.docs_linking({k for _, k in old_keys ^ new_keys})  # keys gained or lost
    for name in _names_to_look_for(before, after, phrases):
        # Every text in which Phrases finds the name matches this query (and some more: stemming).
        words = tuple(_NAME_WORD.findall(name))
        if words:
            refs.update(doc_id for _, doc_id in store.chunks_with_text(TextQuery((Term(words),))))
    series_keys = {s["series"] for s in states if s["series"]}
    series = set(ids) | {m[0] for members in store.series_members(series_keys).values() for m in members}
    dups = set(ids) | store.doc_relation_sources(ids, "duplicate-of")
    hashes = {s["text_hash"] for s in states if s["text_hash"]}
    dups.update(doc_id for members in store.text_hash_members(hashes).values() for doc_id in members)
    query = {p["doc_id"]: p["simhash"] for p in after if p["simhash"] is not None}
    dups.update(other for _, other, _ in sh.near_pairs(query, store.simhashes(MIN_WORDS), MAX_DIFFERING_BITS))
    return refs, series, dups


def _names_to_look_for(before: list[dict], after: list[dict], phrases: Phrases) -> list[str]:
    """Names a changed or removed document gained or lost, or now labels differently (its mentions may now
    point elsewhere or read otherwise): distinctive ones, unless two or more documents share them before
    and after alike (then they name nothing either way)."""
    sides = []
    for states in (before, after):
        names = [(s["doc_id"], kind, name) for s in states for kind, name in doc_names(s["path"], s["title"])]
        side: dict[tuple, tuple[str, str]] = {}  # (doc, words) -> (name, label), the first name as Phrases keeps it
        for (doc_id, kind, name), tokens in zip(names, name_words([n for _, _, n in names])):
            if distinctive(tokens):
                side.setdefault((doc_id, tokens), (name, f'{kind} "{name}"'))
        sides.append(side)
    changed = set(sides[0].items()) ^ set(sides[1].items())
    plus = Counter(t for _, t in sides[1].keys() - sides[0].keys())
    minus = Counter(t for _, t in sides[0].keys() - sides[1].keys())
    out = {}
    for (doc_id, tokens), (name, _) in changed:
        now = phrases.owner_count.get(tokens, 0)
        if now < 2 or now - plus[tokens] + minus[tokens] < 2:
            out[tokens] = name
    return sorted(out.values())


# --- references -------------------------------------------------------------------------


def reference_edges(store: Store, context: _Context, texts: Texts, chunks: dict, keys: dict | None = None) -> list[Edge]:
    """references from the documents of texts: links first, then names written out, one per target.
    keys: if given, receives each document's link keys."""
    links = store.docgraph_links(texts.ids)
    if keys is not None:
        keys.update({doc_id: {k for kind, target, _ in links.get(doc_id, [])
                              for k in link_keys(kind, target, context.paths[doc_id])} for doc_id in texts.ids})
    found: dict[tuple[int, int], Edge] = {}
    for doc_id in texts.ids:
        for edge in link_edges(context.names, doc_id, context.paths[doc_id], links.get(doc_id, []),
                               chunks.get(doc_id, [])):
            found.setdefault((edge.source, edge.target), edge)
    for edge in mention_edges(context.phrases, texts):
        found.setdefault((edge.source, edge.target), edge)
    return list(found.values())


def link_edges(names: NameIndex, doc_id: int, path: str, links, chunks: list[dict]) -> list[Edge]:
    """references for the document's links that resolve to another document, in order."""
    starts = [c["start"] for c in chunks]
    out = []
    for kind, target, offset in links:
        other = names.resolve(kind, target, path)
        if other is None or other == doc_id:
            continue
        at = bisect.bisect_right(starts, offset) - 1
        chunk = chunks[at]["id"] if at >= 0 and offset < chunks[at]["end"] else None
        evidence = f"wikilink [[{target}]]" if kind == "wikilink" else f"link {target}"
        out.append(Edge(doc_id, other, "references", LINK_SCORE, evidence, chunk))
    return out


def mention_edges(phrases: Phrases, texts: Texts) -> list[Edge]:
    """references for other documents' titles and file names written out in these texts, first place each."""
    out = []
    for text, word, other, label in phrases.first_mentions(texts.words):
        doc_id = texts.ids[text]
        if other != doc_id:
            out.append(Edge(doc_id, other, "references", MENTION_SCORE, f"mentions its {label}",
                            texts.chunk_at(text, word)))
    return out


# --- series and duplicates ----------------------------------------------------------------


def _series(store: Store, sources: set[int]) -> None:
    rows = store.fingerprint_rows(sources)
    members = store.series_members({r["series"] for r in rows.values() if r["series"]})
    edges = [e for key, group in members.items() for e in series_edges(group, key) if e.source in sources]
    store.delete_doc_relations(sources, "continues", chunk_level=False)
    store.add_doc_relations(edges)


def _duplicates(store: Store, sources: set[int]) -> None:
    """A copy -> its original (the earlier dated, else the earlier indexed document): each member of a group
    with identical text -> the group's original; then near-duplicates, each pair once."""
    rows = store.fingerprint_rows(sources)
    groups = store.text_hash_members({r["text_hash"] for r in rows.values() if r["text_hash"]})
    query = {i: r["simhash"] for i, r in rows.items() if r["simhash"] is not None}
    near = sh.near_pairs(query, store.simhashes(MIN_WORDS), MAX_DIFFERING_BITS)
    ages = {i: (r["date"] is None, r["date"] or "", i) for i, r in store.fingerprint_rows(
        {*rows, *(i for members in groups.values() for i in members), *(i for _, i, _ in near)}).items()}
    found: dict[tuple[int, int], tuple[float, str]] = {}  # (copy, original) -> (score, evidence)
    same_text = {}
    for text_hash, members in groups.items():
        original = min(members, key=ages.__getitem__)
        same_text.update(dict.fromkeys(members, text_hash))
        found.update({(m, original): (1.0, "identical text") for m in members if m != original})
    near = [(a, b, bits) for a, b, bits in near if same_text.get(a, a) != same_text.get(b, b)]
    chunks = store.docgraph_chunks(sorted({i for a, b, _ in near for i in (a, b)}))
    shingles: dict[int, object] = {}
    for a, b, bits in near:
        for i in (a, b):
            if i not in shingles:
                shingles[i] = sh.shingle_set(b"\n\n".join(c["text"] for c in chunks.get(i, [])))
        shared = sh.jaccard(shingles[a], shingles[b])
        if shared >= MIN_SHARED_SHINGLES:
            original, copy = sorted((a, b), key=ages.__getitem__)
            found[(copy, original)] = (round(min(1 - bits / 64, NEAR_DUPLICATE_CAP), 4),
                                       f"near-duplicate: {bits} of 64 SimHash bits differ,"
                                       f" {shared:.0%} of 3-word shingles shared")
    edges = [Edge(copy, original, "duplicate-of", score, evidence)
             for (copy, original), (score, evidence) in sorted(found.items()) if copy in sources]
    store.delete_doc_relations(sources, "duplicate-of")
    store.add_doc_relations(edges)
