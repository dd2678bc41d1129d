"""What a document can be called, and finding those names in links and in text.

A link resolves to one document or to none (precision first):
- a markdown link `[x](../people/ana.md)` by its path, relative to the linking document
  (a leading `/` means the vault root; `.md` may be left off);
- a wikilink `[[Ana Lima]]` by, in order, the vault path, the file name, then the title (paths and
  file names compared without their extension). The first of these that matches decides: one document
  is the target, two or more is ambiguous and the link resolves to none.

A mention is a document's title or file name (without extension) written out in another
document's text: the same words (docgraph.words: ASCII compared without case) in the same order,
with only spaces or punctuation between them. Only distinctive names count (two or more words, or
one word of eight or more characters; not only common words or numbers; at most MAX_WORDS words),
and only names that belong to one document.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

import numpy as np

from ..entities.common_words import COMMON_WORDS
from ..entities.names import name_key
from .words import Words, distinct, fmix, read_words

MAX_WORDS = 12
_EXTENSIONS = (".md", ".markdown", ".txt")
# Words of note titles that say what kind of note it is, not which: "Weekly sync", "Meeting notes".
GENERIC_WORDS = frozenset(
    """
    agenda archive backlog changelog contents daily decisions draft drafts goals home idea ideas inbox index
    journal kickoff log meeting meetings minutes misc monthly note notes onboarding overview planning projects
    questions readme reading report reports retro retrospective review reviews roadmap standup status summary
    sync tasks template thoughts todo untitled update updates weekly welcome
    """.split()
)
_STEP = np.uint64(0x9E3779B97F4A7C15)


def strip_extension(path: str) -> str:
    for ext in _EXTENSIONS:
        if path.lower().endswith(ext):
            return path[: -len(ext)]
    return path


def doc_names(path: str, title: str) -> list[tuple[str, str]]:
    """(kind, name) a document may be mentioned by: its title, and its file name without extension."""
    return [("title", title), ("file name", strip_extension(posixpath.basename(path)))]


def distinctive(tokens: tuple[bytes, ...]) -> bool:
    """Whether words read from a name are distinctive enough for finding the name in text."""
    words = [t.decode("utf-8", "replace") for t in tokens]
    if not words or len(words) > MAX_WORDS or not all(any(c.isalnum() for c in w) for w in words):
        return False
    if all(w.isdigit() or w in COMMON_WORDS or w in GENERIC_WORDS for w in words):
        return False
    return len(words) > 1 or len(words[0]) >= 8


def name_words(names: list[str]) -> list[tuple[bytes, ...]]:
    """The words of each name (docgraph.words), read together."""
    words = read_words([name.encode() for name in names])
    bounds = np.searchsorted(words.owner, np.arange(len(names) + 1))
    return [tuple(words.token(j) for j in range(bounds[i], bounds[i + 1])) for i in range(len(names))]


class _Lookup:
    """A set of uint64 hashes, asked about many at once: a direct table on the low bits, and a search
    only where two members share a slot."""

    def __init__(self, values: np.ndarray):
        self.values = distinct(values)
        bits = max(12, int(np.ceil(np.log2(max(self.values.size, 1) * 8))))
        self.mask = np.uint64((1 << bits) - 1)
        slots = (self.values & self.mask).astype(np.intp)
        self.table = np.full(1 << bits, -1, dtype=np.int64)
        self.table[slots] = np.arange(self.values.size)
        self.table[np.bincount(slots, minlength=1 << bits) > 1] = -2

    def index(self, query: np.ndarray) -> np.ndarray:
        """Each query's position in self.values, -1 where it is not a member."""
        if not self.values.size:
            return np.full(query.size, -1, dtype=np.int64)
        at = self.table[(query & self.mask).astype(np.intp)]
        shared = np.flatnonzero(at == -2)
        at[shared] = np.searchsorted(self.values, query[shared]).clip(max=self.values.size - 1)
        return np.where(self.values[np.maximum(at, 0)] == query, at, -1)

    def contains(self, query: np.ndarray) -> np.ndarray:
        return self.index(query) >= 0


# --- links ---------------------------------------------------------------------------------


def doc_link_keys(path: str, title: str) -> set[str]:
    """Keys under which links find this document (see link_keys)."""
    bare = strip_extension(path)
    return {"p:" + path, "w:" + name_key(bare), "w:" + name_key(title), "w:" + name_key(posixpath.basename(bare))}


def link_keys(kind: str, target: str, from_path: str) -> list[str]:
    """The keys a link looks up: the same for a link and for every document it may resolve to, so that
    a document appearing or disappearing finds the documents whose links may now point elsewhere."""
    if kind == "markdown":
        path = markdown_path(target, from_path)
        return [] if path is None else ["p:" + path, "p:" + path + ".md"]
    return ["w:" + name_key(strip_extension(target.strip()))]


def markdown_path(target: str, from_path: str) -> str | None:
    """The vault path a relative markdown link points to (None when it leaves the vault)."""
    target = unquote(target).strip()
    if not target:
        return None
    base = "" if target.startswith("/") else posixpath.dirname(from_path)
    path = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
    return None if path in (".", "..") or path.startswith("../") else path


class NameIndex:
    """Every document's path, file name and title, for resolving links."""

    def __init__(self, docs: list[tuple[int, str, str]]):
        self.by_path: dict[str, int] = {}
        self.paths: dict[str, set[int]] = {}  # name_key(path without extension)
        self.stems: dict[str, set[int]] = {}
        self.titles: dict[str, set[int]] = {}
        self.wikilinks: dict[str, int | None] = {}  # resolved already
        for doc_id, path, title in docs:
            bare = strip_extension(path)
            self.by_path[path] = doc_id
            self.paths.setdefault(name_key(bare), set()).add(doc_id)
            self.stems.setdefault(name_key(posixpath.basename(bare)), set()).add(doc_id)
            self.titles.setdefault(name_key(title), set()).add(doc_id)

    def resolve(self, kind: str, target: str, from_path: str) -> int | None:
        if kind == "markdown":
            path = markdown_path(target, from_path)
            if path is None:
                return None
            return self.by_path.get(path, self.by_path.get(path + ".md"))
        if target not in self.wikilinks:
            self.wikilinks[target] = self._resolve_name(name_key(strip_extension(target.strip())))
        return self.wikilinks[target]

    def _resolve_name(self, key: str) -> int | None:
        for table in (self.paths, self.stems, self.titles):
            found = table.get(key)
            if found:
                return next(iter(found)) if len(found) == 1 else None
        return None


# --- mentions ------------------------------------------------------------------------------


def prefix_hashes(runs: list[np.ndarray]) -> np.ndarray:
    """(runs, longest) array: the hash of the first k + 1 word hashes of each run (0 past its end), as
    Phrases.find computes it over a text word by word."""
    longest = max((r.size for r in runs), default=0)
    words = np.zeros((len(runs), longest), dtype=np.uint64)
    for i, run in enumerate(runs):
        words[i, :run.size] = run
    out = np.zeros_like(words)
    running = np.zeros(len(runs), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(longest):
            running = fmix(running * _STEP + words[:, k])
            out[:, k] = running
    return out


class Phrases:
    """The distinctive names of documents, found in many texts at once (see the module's rules)."""

    def __init__(self, docs: list[tuple[int, str, str]]):
        names = [(doc_id, kind, name) for doc_id, path, title in docs for kind, name in doc_names(path, title)]
        words = read_words([name.encode() for _, _, name in names])
        bounds = np.searchsorted(words.owner, np.arange(len(names) + 1))
        owners: dict[tuple[bytes, ...], dict[int, str]] = {}
        hashes: dict[tuple[bytes, ...], np.ndarray] = {}
        for i, (doc_id, kind, name) in enumerate(names):
            tokens = tuple(words.token(j) for j in range(bounds[i], bounds[i + 1]))
            if distinctive(tokens):
                owners.setdefault(tokens, {}).setdefault(doc_id, f'{kind} "{name}"')
                hashes[tokens] = words.hashes[bounds[i]:bounds[i + 1]]
        self.owner_count = {tokens: len(o) for tokens, o in owners.items()}  # several: ambiguous, never found
        unique = [(tokens, *next(iter(o.items()))) for tokens, o in owners.items() if len(o) == 1]
        self.entries = unique  # (tokens, owner doc id, evidence label)
        self.exact = np.array([all(len(t) <= 8 for t in tokens) for tokens, _, _ in unique], dtype=bool)
        self.owners = np.array([owner for _, owner, _ in unique], dtype=np.int64)
        prefixes = prefix_hashes([hashes[tokens] for tokens, _, _ in unique])
        lengths = np.array([len(t) for t, _, _ in unique], dtype=np.int64)
        self.longest = int(lengths.max(initial=0))
        self.whole: dict[int, tuple[_Lookup, np.ndarray]] = {}  # words -> (hashes of names, their entries)
        self.partial: dict[int, _Lookup] = {}  # words -> hashes of the first words of longer names
        for length in range(1, self.longest + 1):
            index = np.flatnonzero(lengths == length)
            lookup = _Lookup(prefixes[index, length - 1])
            entries = np.empty(lookup.values.size, dtype=np.int64)
            entries[lookup.index(prefixes[index, length - 1])] = index
            self.whole[length] = (lookup, entries)
            self.partial[length] = _Lookup(prefixes[lengths > length, length - 1])
        self.firsts = _Lookup(np.array([hashes[t][0] for t, _, _ in unique], dtype=np.uint64))

    def find(self, words: Words) -> tuple[np.ndarray, np.ndarray]:
        """(word index where it starts, entry index) of every name found in words."""
        found_at, found_entry = [], []
        if not self.entries or words.hashes.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        starts = np.flatnonzero(self.firsts.contains(words.hashes))  # where some name's first word is
        running = np.zeros(starts.size, dtype=np.uint64)
        for length in range(1, self.longest + 1):
            last = starts + length - 1
            ok = last < words.hashes.size
            starts, running, last = starts[ok], running[ok], last[ok]
            same = words.owner[last] == words.owner[starts]
            starts, running, last = starts[same], running[same], last[same]
            with np.errstate(over="ignore"):
                running = fmix(running * _STEP + words.hashes[last])
            lookup, entries = self.whole[length]
            position = lookup.index(running)
            hit = np.flatnonzero(position >= 0)
            at, entry = starts[hit], entries[position[hit]]
            check = ~self.exact[entry]  # a word longer than 8 bytes: compare the words themselves
            for i in np.flatnonzero(check).tolist():
                tokens = self.entries[entry[i]][0]
                check[i] = any(words.token(int(at[i]) + k) != t for k, t in enumerate(tokens))
            found_at.append(at[~check])
            found_entry.append(entry[~check])
            keep = self.partial[length].contains(running)  # only runs that begin a longer name go on
            starts, running = starts[keep], running[keep]
            if not starts.size:
                break
        none = [np.zeros(0, dtype=np.int64)]
        return np.concatenate(found_at or none), np.concatenate(found_entry or none)

    def first_mentions(self, words: Words) -> list[tuple[int, int, int, str]]:
        """(text index, word index, owner doc id, evidence label): the first place each text names each
        other document, in text order."""
        at, entry = self.find(words)
        text, owner = words.owner[at], self.owners[entry]
        order = np.lexsort((at, owner, text))
        text, owner, at, entry = text[order], owner[order], at[order], entry[order]
        first = np.ones(at.size, dtype=bool)
        first[1:] = (text[1:] != text[:-1]) | (owner[1:] != owner[:-1])
        rows = sorted(zip(text[first].tolist(), at[first].tolist(), owner[first].tolist(), entry[first].tolist()))
        return [(t, a, o, self.entries[e][2]) for t, a, o, e in rows]
