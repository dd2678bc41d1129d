"""A relation as a sentence read from one of its ends: the one place that decides its direction.

A relation is stored once, canonically (Ana --reports-to--> Ben). Asked about Ben, it reads
"Ben --manages--> Ana": the subject is the entity asked about and the type is the inverse. A row
that names only "the other end" (inverse_relations' `source`) invites reading it backwards, so
every door prints the subject, type and object this module gives, and never re-derives them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..vocabulary import Vocabulary


@dataclass(frozen=True)
class Reading:
    """subject --type--> object, true as written."""

    subject: str
    type: str
    object: str

    def line(self) -> str:
        return sentence(self.subject, self.type, self.object)


def read_from(vocab: Vocabulary, type_name: str, source: str, target: str, from_source: bool) -> Reading:
    """The stored relation source --type_name--> target as read from its source (from_source) or target.

    From the target a type reads as its inverse with the ends swapped; a symmetric type reads the same
    from both ends. A type the vocabulary no longer knows (dropped from kbgraph.toml) has no inverse
    name to read it by, so it keeps its stored direction rather than say something untrue."""
    rtype = vocab.types.get(type_name)
    if from_source:
        return Reading(source, type_name, target)
    if rtype is not None and rtype.symmetric:
        return Reading(target, type_name, source)
    if rtype is not None and rtype.inverse:
        return Reading(target, rtype.inverse, source)
    return Reading(source, type_name, target)


def sentence(subject: str, type_name: str, obj: str) -> str:
    """"Ben Okafor --manages--> Ana Lima": how every door writes a relation as one line."""
    return f"{subject} --{type_name}--> {obj}"


def relation_line(row: Mapping) -> str:
    """The line of a relation row that carries subject, type and object (every relation JSON does)."""
    return sentence(row["subject"], row["type"], row["object"])

