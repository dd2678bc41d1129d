"""Relations that follow from where things are: a section split across chunks, a dated series of
notes, and a document's place among folders.

Series. Two dated documents are in one series when they sit in the same folder once the date
folders are taken out (`meetings/2026/01/13/` and `meetings/2026/02/17/` are both `meetings/`) and
their file names match once the digits are taken out (`atlas-weekly-sync.md`,
`2026-01-05-standup.md`, `notes.md`). Each member `continues` into the next one by date. A folder
of differently named dated notes (`decisions/2026-01-27-use-kafka.md`) is not a series: the same
name is what says "the next one of these".

Parents. A folder is represented by its index note when it has one (`README.md`, `index.md`,
`_index.md`, or a note named like the folder, `projects/projects.md`, inside it), otherwise by the
folder itself as a pseudo-node (`meetings/2026/`, no document). A document's parents are the
folders above it, nearest first, each as its index note or pseudo-node: the lineage stays
navigable in a vault with no index notes at all, and an index note, where someone wrote one, is
the better answer. An index note's own folder is the one it stands for, so its parents start one
level up. The vault root has no pseudo-node (every document would share it), but a root README
counts. Siblings are the other documents in the same folder (not its index note, which is the
parent). Both are computed from paths when read, never stored: a folder of 5,000 notes would
otherwise store 25 million sibling rows.
"""

from __future__ import annotations

import posixpath
import re

from .edges import SERIES_SCORE, SPLIT_SCORE, Edge

_HEADING_LINE = re.compile(rb"^ {0,3}#{1,6}[ \t]")
_NUMBER = re.compile(r"\d+")


def split_sections(doc_id: int, chunks: list[dict]) -> list[Edge]:
    """chunk -> next chunk where a section was split in two: the same heading, and the next one does not
    start with the heading line (it is the rest of the section, not another section of that name).
    Chunks are dicts with id, heading and text (UTF-8 bytes)."""
    out = []
    for before, after in zip(chunks, chunks[1:]):
        if before["heading"] == after["heading"] and not _HEADING_LINE.match(after["text"]):
            heading = before["heading"] or "(top)"
            out.append(Edge(doc_id, doc_id, "continues", SPLIT_SCORE, f"section {heading!r} continues",
                            before["id"], after["id"]))
    return out


def series_key(path: str, date: str | None) -> str | None:
    """What a dated document's series is called, or None for an undated one."""
    if not date:
        return None
    folder, name = posixpath.split(path)
    folders = [part for part in folder.split("/") if part and not part.isdigit()]
    stem = posixpath.splitext(name)[0].lower()
    return "/".join(folders) + "/" + _NUMBER.sub("#", stem)


def series_edges(members: list[tuple[int, str, str]], key: str) -> list[Edge]:
    """Each member (id, path, date) -> the next one by date (then path)."""
    ordered = sorted(members, key=lambda m: (m[2], m[1]))
    return [Edge(a[0], b[0], "continues", SERIES_SCORE, f"next in the dated series {key} ({b[2]})")
            for a, b in zip(ordered, ordered[1:])]


def folder_of(path: str) -> str:
    return posixpath.dirname(path)


def index_candidates(folder: str, extensions: tuple[str, ...]) -> list[str]:
    """Paths an index note of folder may have, most usual first (exact case: matched against the index)."""
    name = posixpath.basename(folder)
    stems = ["README", "readme", "Readme", "index", "INDEX", "Index", "_index"] + ([name, name.lower()] if name else [])
    return [posixpath.join(folder, stem + ext) for stem in dict.fromkeys(stems) for ext in extensions]
