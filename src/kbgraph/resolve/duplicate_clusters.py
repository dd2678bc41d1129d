"""Proposed duplicate pairs as clusters: a person with four pages is one question, not six.

The pairs `find_duplicates` proposes are the edges of a graph over the pages; each connected part is a
cluster. A cluster of two is its pair. A larger one is asked as one question about all its pages: each
other page against the fullest (the canonical page), so answering it links every page to one entity and
no set of answers can say A = B, B = C and A != C. A page linked to the cluster only through another page
is compared with the canonical page directly, so its question shows that comparison.

Pure: the pairs in, the clusters out, in a stable order (by their canonical page's id).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .duplicates import DuplicatePair, DuplicateRecord, normalise, score_pair


@dataclass(frozen=True)
class DuplicateCluster:
    members: tuple[DuplicateRecord, ...]  # by id
    canonical: DuplicateRecord  # the fullest page: the one the others are linked to
    pairs: tuple[DuplicatePair, ...]  # the proposed pairs inside it, best first

    def paths(self) -> list[str]:
        return sorted(m.path or m.id for m in self.members)

    def pair_with(self, member: DuplicateRecord) -> DuplicatePair:
        """The proposed pair of member and the canonical page, else the two compared now."""
        for pair in self.pairs:
            if {pair.left.id, pair.right.id} == {member.id, self.canonical.id}:
                return pair
        left, right = sorted((member, self.canonical), key=lambda r: r.id)
        return score_pair(normalise(left), normalise(right))


def duplicate_clusters(pairs: Sequence[DuplicatePair],
                       fullness: Callable[[DuplicateRecord], tuple]) -> list[DuplicateCluster]:
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    records: dict[str, DuplicateRecord] = {}
    for pair in pairs:
        records[pair.left.id], records[pair.right.id] = pair.left, pair.right
        a, b = root(pair.left.id), root(pair.right.id)
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups: dict[str, list[DuplicateRecord]] = {}
    for rid, record in records.items():
        groups.setdefault(root(rid), []).append(record)
    inside: dict[str, list[DuplicatePair]] = {}
    for pair in pairs:
        inside.setdefault(root(pair.left.id), []).append(pair)
    out = []
    for key, members in groups.items():
        canonical = max(members, key=fullness)
        out.append(DuplicateCluster(tuple(sorted(members, key=lambda r: r.id)), canonical, tuple(inside[key])))
    return sorted(out, key=lambda c: c.canonical.id)
