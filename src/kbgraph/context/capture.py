"""Quick capture: `person: Arjun; alias: AJ; int: fountain pens; loop: ask about surgery @2026-08-15`.

A capture line is parts separated by `;`, each `key: value`. The first part names the entity
(`person:`, `project:`, `team:`, any entity type, or `entity:` for one that must exist); the others say
things about it: `alias`, `int`/`interest`, `role`, `note`, `event` (facts; a trailing `(YYYY-MM-DD)`
dates one) and `loop`/`todo` (a follow-up; a trailing `@YYYY-MM-DD` is its due date). Text that does
not start with a key is free text, appended to the day's daily note.

All or nothing: every part is checked, and the name resolved, before anything is written. A name is
found the way lookups find it (exact name or alias; several matches are an error listing them); a name
found nowhere goes through entity resolution: a close match asks (`CONFIRM? 'Arjoon' == Arjun Mehta
(P=0.81)`) and nothing is stored until confirmed; a new entity is made only for `TYPE: Name`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass, field

from ..access import LOCAL
from ..entities.lookup import find_entity
from ..errors import InvalidInput, NotFound
from ..model import Entity
from ..pages.memory_lines import FACTS, LOOPS, format_fact, format_loop, read_fact
from ..base.workspace import Workspace
from .facts import KIND_WORDS, _check_line, fact_kind
from .loops import split_due
from .memory import check_appends, clean, today_iso

_PART = re.compile(r"^\s*(?P<key>[A-Za-z][\w-]*)\s*:\s*(?P<value>.*?)\s*$", re.DOTALL)
FACT_KEYS = {"interest", "role", "note", "event", *KIND_WORDS}
LOOP_KEYS = {"loop", "todo"}
ALIAS_KEYS = {"alias", "aka"}
DAILY_FOLDER = "daily"
_WORD = re.compile(r"[^\W_]")  # a letter or a digit, in any script


@dataclass(frozen=True)
class Part:
    key: str  # "alias" | a fact kind | "loop"
    text: str
    date: str | None = None


@dataclass(frozen=True)
class CaptureLine:
    entity_type: str | None  # None for `entity:` (must exist)
    name: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Question:
    name: str
    candidate: str
    probability: float

    def __str__(self) -> str:
        return f"CONFIRM? {self.name!r} == {self.candidate} (P={self.probability:.2f})"


@dataclass(frozen=True)
class Captured:
    """What a capture did: stored or not, about whom, the facts, loops and aliases written (their ids), the
    daily note appended to, questions to confirm (nothing stored), and warnings."""

    stored: bool
    entity: str | None = None
    created: bool = False
    facts: tuple[int, ...] = ()
    loops: tuple[int, ...] = ()
    aliases: tuple[str, ...] = ()
    daily_note: str | None = None
    questions: tuple[Question, ...] = ()
    warnings: tuple[str, ...] = field(default=())


def parse_capture(text: str, entity_types: tuple[str, ...]) -> CaptureLine | None:
    """The capture line's parts (checked), or None for free text; InvalidInput names the part at fault."""
    chunks = [c for c in (text or "").split(";")]
    first = _PART.match(chunks[0])
    keys = {*entity_types, "entity"} | FACT_KEYS | LOOP_KEYS | ALIAS_KEYS
    if first is None or first.group("key").lower() not in keys:
        return None
    head = first.group("key").lower()
    if head not in (*entity_types, "entity"):
        raise InvalidInput(f"part 1 {chunks[0].strip()!r}: a capture starts with the entity it is about"
                           f" (`person: Name`, `entity: Name`)", param="capture")
    name = clean(first.group("value"), "capture")
    parts = [_part(i + 2, chunk, entity_types) for i, chunk in enumerate(chunks[1:])]
    _refuse_repeated_aliases(chunks, parts)
    if not parts:
        raise InvalidInput(f"{chunks[0].strip()!r} says nothing about {name}: add `; int: …`, `; loop: …`",
                           param="capture")
    return CaptureLine(None if head == "entity" else head, name, tuple(parts))


def _refuse_repeated_aliases(chunks: list[str], parts: list[Part]) -> None:
    """An alias given twice (in any case) is an error naming both parts: stored once, the second would fail
    half-way through the writes."""
    seen: dict[str, int] = {}
    for number, part in enumerate(parts, start=2):
        if part.key != "alias":
            continue
        first = seen.setdefault(part.text.casefold(), number)
        if first != number:
            raise InvalidInput(f"part {number} {chunks[number - 1].strip()!r}: repeats part {first}; give each alias"
                               " once", param="capture")


def _part(number: int, chunk: str, entity_types: tuple[str, ...]) -> Part:
    where = f"part {number} {chunk.strip()!r}"
    match = _PART.match(chunk)
    if match is None:
        raise InvalidInput(f"{where}: not `key: value`", param="capture")
    key, value = match.group("key").lower(), match.group("value")
    if not value.strip():
        raise InvalidInput(f"{where}: empty value", param="capture")
    try:
        if key in ALIAS_KEYS:
            return Part("alias", clean(value, "capture"))
        if key in FACT_KEYS:
            kind = fact_kind(key)
            line = read_fact(f"- {kind}: {value}")
            if isinstance(line, str):
                raise InvalidInput(line)
            _check_line(kind, line.text, line.date)
            return Part(kind, line.text, line.date)
        if key in LOOP_KEYS:
            text, due = split_due(value)
            return Part("loop", text, due)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc.message}", param="capture") from None
    if key in (*entity_types, "entity"):
        raise InvalidInput(f"{where}: one capture is about one entity", param="capture")
    raise InvalidInput(f"{where}: unknown key {key!r}; use alias, int, role, note, event or loop", param="capture")


def capture(ws: Workspace, text: str, confirm: bool = False, today: str | None = None) -> Captured:
    """Store what a capture line says (or append free text to the daily note); see the module docstring."""
    today = today or today_iso()
    if not " ".join((text or "").split()):
        raise InvalidInput("the note is empty", param="capture")
    if not _WORD.search(text):
        raise InvalidInput(f"the note {text.strip()!r} has no words; nothing was written", param="capture")
    line = parse_capture(text, tuple(ws.config.entity_types))
    if line is None:
        return Captured(True, daily_note=_append_daily(ws, text, today))
    entity, question, new = _resolve(ws, line, confirm)
    if question is not None and entity is None:  # a gray-zone name: asked, nothing stored
        return Captured(False, entity=None, questions=(question,))
    aliases = [p.text for p in line.parts if p.key == "alias"]
    for alias in aliases:
        _check_alias(ws, alias, entity, line.entity_type)
    if entity is not None and entity.page_path:  # a page that would refuse a line refuses it now
        check_appends(ws, entity.page_path, _page_lines(line))
    stored = _store(ws, line, entity, new, aliases, today)
    if question is not None:  # read as its closest entity: said, never silent
        read_as = f"{question.name!r} was read as {question.candidate} (P={question.probability:.2f})"
        stored = dataclasses.replace(stored, warnings=(read_as, *stored.warnings))
    return stored


def _resolve(ws: Workspace, line: CaptureLine, confirm: bool) -> tuple[Entity | None, Question | None, bool]:
    try:
        return find_entity(ws.store, line.name, line.entity_type, access=ws.access), None, False
    except NotFound:
        pass  # Ambiguous propagates: never a guess among several
    best = _closest(ws, line)
    if best is not None:
        entity, probability, outcome = best
        question = Question(line.name, entity.name, probability)
        return (entity if outcome == "auto-link" or confirm else None), question, False
    if line.entity_type is None:
        raise NotFound(f"no entity named {line.name!r}", param="capture",
                       hint="name its type (person: Name) to create it")
    return None, None, True


def _closest(ws: Workspace, line: CaptureLine) -> tuple[Entity, float, str] | None:
    """The entity resolution's best candidate for a name no entity spells, if it would link or ask."""
    from ..resolve.decisions import current_weights, thresholds
    from ..resolve.model import EntityProfile
    from ..resolve.resolver import ResolverIndex

    entities = {e.id: e for e in ws.store.list_entities(ws.access)
                if e.status == "active" and line.entity_type in (None, e.type)}
    profiles = []
    for e in entities.values():
        profile = EntityProfile(e.id, e.type, e.name, tuple(a for a in e.aliases if a.strip()))
        try:
            ResolverIndex([profile])
        except InvalidInput:
            continue
        profiles.append(profile)
    index = ResolverIndex(profiles, weights=current_weights(ws.store), thresholds=thresholds(ws.config))
    decision = index.resolve(line.name)
    if decision.outcome == "new" or decision.best is None:
        return None
    return entities[decision.best.entity_id], decision.best.score, decision.outcome


def _check_alias(ws: Workspace, alias: str, entity: Entity | None, entity_type: str | None) -> None:
    from ..errors import Ambiguous

    try:  # among every entity: an alias one reader cannot see would still make two entities one name
        other = find_entity(ws.store, alias, access=LOCAL)
    except NotFound:
        return
    except Ambiguous:
        other = None
    if other is None or entity is None or other.id != entity.id:
        # Named only to a reader who may read it: the refusal must not tell a token that it exists.
        named = other is not None and ws.store.get_entity(ws.access, other.id) is not None
        which = other.name if named else "another entity" if other is not None else "other entities"
        raise InvalidInput(f"alias {alias!r} already names {which}", param="capture")


def _page_lines(line: CaptureLine) -> list[tuple[str, str]]:
    return [(LOOPS, format_loop(p.text, p.date)) if p.key == "loop" else (FACTS, format_fact(p.key, p.text, p.date))
            for p in line.parts if p.key != "alias"]


def _store(ws: Workspace, line: CaptureLine, entity: Entity | None, new: bool, aliases: list[str],
           today: str) -> Captured:
    from ..curation.merging import merge_entities
    from ..relations.edits import create_entity
    from .facts import add_fact
    from .loops import add_loop

    if entity is None:  # new: `person: Name` and nobody by that name
        entity = create_entity(ws, line.entity_type or "person", line.name)
    facts, loops, warnings, added = [], [], [], []
    known = {n.casefold() for n in (entity.name, *entity.aliases)}
    for alias in aliases:
        if alias.casefold() in known:
            continue
        create_entity(ws, entity.type, alias)
        merge_entities(ws, alias, entity.name)
        known.add(alias.casefold())
        added.append(alias)
    for part in line.parts:
        if part.key == "loop":
            recorded = add_loop(ws, entity.name, part.text, part.date, today=today)
            loops.append(recorded.item.id)
            warnings += recorded.warnings
        elif part.key != "alias":
            facts.append(add_fact(ws, entity.name, part.key, part.text, part.date).item.id)
    return Captured(True, entity.name, new, tuple(facts), tuple(loops), tuple(added), warnings=tuple(warnings))


def _append_daily(ws: Workspace, text: str, today: str) -> str:
    from ..pages.files import append_to_note, write_lock
    from .memory import reread

    path = f"{DAILY_FOLDER}/{today}.md"
    stamp = dt.datetime.now().strftime("%H:%M")
    with write_lock(ws.root):
        append_to_note(ws.root, path, f"- {stamp} {' '.join(text.split())}", header=f"# {today}\n\n")
        reread(ws, path)
    return path
