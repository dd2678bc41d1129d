"""An entity in a few tokens: who it is (type, role, team) and its key relations, each marked with how
sure kbgraph is of it, rendered as one index line or as a slice's short lines.

A relation is shown as read from the entity ("reports to: Ben Okafor", "manages: 3"), and marked
`(unconfirmed)` when it was extracted with low confidence and never accepted, or is a pending
suggestion; `(expired 2026-01-31)` when its valid_until has passed (only when expired relations are
asked for); `(inferred)` when graph inference derived it (only when asked for).

An entity with a page says what the page is, by its title (`KEP-753 (project "Sidecar Containers"; ...)`),
in a few words, when the reader may read the page and the title says more than the name and type do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..access import Access
from ..model import Entity
from ..relations.records import view_row
from ..vocabulary import Vocabulary
from ..store.base import DocFilter, GraphScope, Store

ROWS_PER_DIRECTION = 200  # relations read per entity and direction; the counts are read whole
# How relations read from the entity are ordered: who they answer to and for, what they lead, then the rest by size.
KEY_LABELS = ("reports-to", "manages", "leads", "led-by", "member-of", "has-member", "depends-on", "part-of")
TITLE_WORDS = 6  # a page's title is shown in this many words at most, cut ending "…"
TITLE_CHARS = 48  # and in this many characters (a title of long words)
_TITLE_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NAME_SEPARATORS = " \t:;,.-–—|/()[]"


@dataclass(frozen=True)
class Related:
    name: str
    mark: str | None = None  # "unconfirmed" | "expired YYYY-MM-DD" | "inferred"

    def render(self) -> str:
        return f"{self.name} ({self.mark})" if self.mark else self.name


@dataclass(frozen=True)
class RelationGroup:
    """The relations of one type as read from the entity ("manages"), the other ends sorted, and how many
    there are in all (more than listed when ROWS_PER_DIRECTION cut the read)."""

    label: str
    others: tuple[Related, ...]
    total: int


@dataclass(frozen=True)
class EntityCard:
    id: int
    name: str
    type: str
    role: str | None
    team: str | None
    groups: tuple[RelationGroup, ...]
    mentions: int
    tier: int
    title: str | None = None  # what its page is, when that says more than the name (page_title)

    def kind(self) -> str:
        """The type, and the page's title when it adds something: `project "Sidecar Containers"`."""
        return f'{self.type} "{self.title}"' if self.title else self.type

    def line(self, names: int = 2, groups: int = 3) -> str:
        """One index line: "Ana Lima (person; Engineering Manager, Platform; manages: 2; leads: Project Atlas)".
        A group lists its names when it has at most `names` of them and gives its count otherwise."""
        parts = [self.kind() + "".join(f", {x}" for x in (self.role, self.team) if x)]
        parts += [f"{heading(g)}: {group_text(g, names)}" for g in self.groups[:groups]]
        return f"{self.name} ({'; '.join(parts)})"

    def lines(self, names: int = 3) -> list[str]:
        """A slice: the who line, then one line per relation type (names, or the count and the first few)."""
        who = ", ".join(x for x in (self.kind(), self.role, f"team {self.team}" if self.team else None) if x)
        out = [f"{self.name}: {who}; mentioned {self.mentions}x"]
        out += [f"- {heading(g)}: {group_text(g, names, listing=True)}" for g in self.groups]
        return out


def common_mark(group: RelationGroup) -> str | None:
    """The mark every listed relation of the group shares (said once, after the label), if any."""
    marks = {o.mark for o in group.others}
    return marks.pop() if len(marks) == 1 and len(group.others) > 1 else None


def heading(group: RelationGroup) -> str:
    mark = common_mark(group)
    return group.label.replace("-", " ") + (f" ({mark})" if mark else "")


def group_text(group: RelationGroup, names: int, listing: bool = False) -> str:
    if common_mark(group):
        group = RelationGroup(group.label, tuple(Related(o.name) for o in group.others), group.total)
    marked = [o for o in group.others if o.mark]
    if group.total <= names:
        return ", ".join(o.render() for o in group.others)
    extra = f" ({len(marked)} {_marks(marked)})" if marked else ""
    if not listing:
        return f"{group.total}{extra}"
    plain = [o for o in group.others if not o.mark][:names]
    return f"{group.total}{extra}, e.g. {', '.join(o.render() for o in plain or group.others[:names])}"


def _marks(marked: list[Related]) -> str:
    kinds = sorted({(o.mark or "").split(" ")[0] for o in marked})
    return "/".join(kinds)


def entity_cards(store: Store, vocab: Vocabulary, entities: list[Entity], access: Access, today: str,
                 include_expired: bool = False, include_inferred: bool = False,
                 include_suggestions: bool = False) -> dict[int, EntityCard]:
    """A card per entity (by id). Every read goes through access."""
    accepted: set | None = None
    pending = _pending(store, vocab, access, entities) if include_suggestions else {}
    inferred = _inferred(store, vocab, access, entities, today) if include_inferred else {}
    cards = {}
    for entity in entities:
        found: dict[str, list[Related]] = {}
        totals: dict[str, int] = {}
        rows = [row for direction in ("out", "in") for row in store.relations_from(
            access, entity.id, direction, None, None if include_expired else today, ROWS_PER_DIRECTION)]
        if accepted is None and any(row["confidence"] == "auto-low" for row in rows):
            accepted = {(s["source_id"], s["target_id"], s["type"]) for s in store.suggestions(access, "accepted")}
        for row in rows:
            _, data = view_row(row, vocab, entity.id, today)
            other = data.get("target") or data.get("source")
            found.setdefault(data["type"], []).append(Related(other, _mark(row, data, accepted or set())))
        if len(rows) >= ROWS_PER_DIRECTION:
            totals = _totals(store, vocab, entity, access, None if include_expired else today)
        for label, other in (*pending.get(entity.id, ()), *inferred.get(entity.id, ())):
            found.setdefault(label, []).append(other)
        cards[entity.id] = _card(entity, found, totals, _mentions(store, entity, access),
                                 _page_title(store, entity, access))
    return cards


def _page_title(store: Store, entity: Entity, access: Access) -> str | None:
    """The title of the entity's page as access may read it (a page it may not read says nothing)."""
    if not entity.page_path:
        return None
    doc = store.get_document(access, path=entity.page_path)
    return page_title(entity.name, entity.type, doc.get("title") if doc else None)


def page_title(name: str, entity_type: str, title: str | None) -> str | None:
    """The title as a card shows it: without a leading name ("KEP-753: Sidecar Containers" -> "Sidecar
    Containers"), at most TITLE_WORDS words and TITLE_CHARS characters (cut at a word, ending "…"); None
    when it says nothing the name and type do not ("Project Atlas" for Project Atlas, "ana-lima")."""
    text = " ".join((title or "").split()).replace('"', "'")
    known = _title_words(name)
    if known and _title_words(text)[:len(known)] == known:  # the name leads: keep what follows it
        text = _after_words(text, len(known)).lstrip(_NAME_SEPARATORS).strip()
    if not set(_title_words(text)) - set(known) - set(_title_words(entity_type)):
        return None
    words = text.split(" ")
    cut = " ".join(words[:TITLE_WORDS])
    while len(cut) > TITLE_CHARS and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    cut = cut[:TITLE_CHARS]
    return cut if cut == text else cut.rstrip(_NAME_SEPARATORS) + "…"


def _title_words(text: str) -> list[str]:
    return [w.casefold() for w in _TITLE_WORD.findall(text)]


def _after_words(text: str, count: int) -> str:
    """text after its first count words."""
    found = list(_TITLE_WORD.finditer(text))
    return text[found[count - 1].end():] if count else text


def _mentions(store: Store, entity: Entity, access: Access) -> int:
    """How often the entity is mentioned in what access may read: the stored count for the single user;
    for a reader with less, counted in the notes it may read (never a hint of the others)."""
    if access.sees_everything:
        return entity.mention_count
    return sum(row[2] for row in store.docs_mentioning(access, [entity.id], DocFilter()) if not row[4])


def _card(entity: Entity, found: dict[str, list[Related]], totals: dict[str, int], mentions: int,
          title: str | None = None) -> EntityCard:
    team = _text(entity.attributes.get("team"))
    role = _text(entity.attributes.get("role"))
    groups = []
    for label, others in found.items():
        unique = {o.name: o for o in sorted(others, key=lambda o: (o.mark is not None, o.name.lower()))}
        if label == "member-of" and team:  # the team attribute already says it
            unique.pop(team, None)
        if unique:
            listed = tuple(sorted(unique.values(), key=lambda o: (o.mark is not None, o.name.lower())))
            groups.append(RelationGroup(label, listed, max(len(listed), totals.get(label, 0))))
    groups.sort(key=lambda g: (KEY_LABELS.index(g.label) if g.label in KEY_LABELS else len(KEY_LABELS),
                               -g.total, g.label))
    shown_team = None if team and role and team.lower() in role.lower() else team  # "Engineering Lead, Growth"
    return EntityCard(entity.id, entity.name, entity.type, role, shown_team, tuple(groups), mentions,
                      entity.tier, title)


def _mark(row: dict, data: dict, accepted: set) -> str | None:
    if data["expired"]:
        return f"expired {row['valid_until']}"
    if row["confidence"] == "auto-low" and (row["source_id"], row["target_id"], row["type"]) not in accepted:
        return "unconfirmed"
    return None


def _totals(store: Store, vocab: Vocabulary, entity: Entity, access: Access, active_on: str | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for (direction, type_name), n in store.relation_counts(access, entity.id, active_on).items():
        rtype = vocab.types.get(type_name)
        label = vocab.label(type_name, direction == "out" or bool(rtype and rtype.symmetric))
        out[label] = out.get(label, 0) + n
    return out


def _pending(store: Store, vocab: Vocabulary, access: Access, entities: list[Entity]) -> dict[int, list[tuple[str, Related]]]:
    """Pending suggestions touching the entities, as (label read from the entity, the other end unconfirmed)."""
    ids = {e.id for e in entities}
    out: dict[int, list[tuple[str, Related]]] = {}
    for s in store.suggestions(access, "pending"):
        for me, other, outgoing in ((s["source_id"], s["target"], True), (s["target_id"], s["source"], False)):
            if me in ids and other:
                label = vocab.label(s["type"], outgoing)
                out.setdefault(me, []).append((label, Related(other, "unconfirmed")))
    return out


def _inferred(store: Store, vocab: Vocabulary, access: Access, entities: list[Entity],
              today: str) -> dict[int, list[tuple[str, Related]]]:
    out: dict[int, list[tuple[str, Related]]] = {}
    steps = store.relation_steps(access, [e.id for e in entities], "both",
                                 GraphScope(active_on=today, include_inferred=True))
    for step in steps:
        if step.inferred:
            rtype = vocab.types.get(step.type)
            label = vocab.label(step.type, step.outgoing or bool(rtype and rtype.symmetric))
            out.setdefault(step.from_id, []).append((label, Related(step.to_name, "inferred")))
    return out


def _text(value) -> str | None:
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value if v)
    return str(value).strip() or None if value not in (None, "") else None
