"""The relation vocabulary: types, their inverses, symmetry and the entity-type pairs they allow.

Pure data and functions. Input in the inverse direction is normalised to the
canonical one ("Ben manages Ana" is stored as Ana --reports-to--> Ben), so the
store holds one row per relation and inverses are computed when read.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .errors import ConfigError, InvalidInput

ANY = "*"


@dataclass(frozen=True)
class RelationType:
    name: str
    inverse: str | None  # None for symmetric types
    pairs: tuple[tuple[str, str], ...]  # allowed (source type, target type); "*" matches any
    symmetric: bool = False
    requires_reason: bool = False
    # One at a time: "source" (a person reports to one manager), "target" (a project has one lead);
    # a second current relation on that end is a contradiction (kbgraph.relations.conflicts).
    functional: str | None = None
    # A hierarchy (reports-to, part-of): a chain of it never comes back to where it began, so the type
    # stated both ways (Ana reports to Ben, Ben reports to Ana) or round a loop is a contradiction.
    hierarchical: bool = False

    def allows(self, source_type: str, target_type: str) -> bool:
        return any(s in (ANY, source_type) and t in (ANY, target_type) for s, t in self.pairs)

    def pairs_text(self) -> str:
        return ", ".join(f"{'any' if s == ANY else s} → {'any' if t == ANY else t}" for s, t in self.pairs)


def _t(name, inverse, pairs, symmetric=False, requires_reason=False, functional=None,
       hierarchical=False) -> RelationType:
    return RelationType(name, inverse, tuple(pairs), symmetric, requires_reason, functional, hierarchical)


_PP = [("person", "person")]
_PROJ = [("person", "project")]
_ANY = [(ANY, ANY)]
_WORK = [("project", "project"), ("project", "technology"), ("technology", "technology"),
         ("technology", "project"), ("team", "project"), ("team", "technology")]

SEED_TYPES = (
    _t("reports-to", "manages", _PP, functional="source", hierarchical=True),
    _t("collaborates-with", None, _PP, symmetric=True),
    _t("mentors", "mentored-by", _PP),
    _t("delegates-to", "delegated-from", _PP),
    _t("leads", "led-by", _PROJ + [("person", "team")], functional="target"),
    _t("contributes-to", "contributor", _PROJ),
    _t("sponsors", "sponsored-by", _PROJ),
    _t("reviews", "reviewed-by", _PROJ),
    _t("member-of", "has-member", [("person", "team")]),
    _t("depends-on", "depended-on-by", _WORK),
    _t("blocks", "blocked-by", [("project", "project")]),
    _t("related-to", None, [("project", "project")], symmetric=True),
    _t("uses", "used-by", _ANY),
    _t("replaces", "replaced-by", _ANY, functional="target"),
    _t("works-with", None, _ANY, symmetric=True),
    _t("part-of", "has-part", _ANY, hierarchical=True),
    _t("informs", "informed-by", _ANY),
    _t("evaluates", "evaluated-by", _ANY),
    _t("superseded-by", "supersedes", _ANY),
    # What inference rules give (kbgraph.graph.inference); they may also be asserted by hand.
    _t("indirectly-depends-on", "indirectly-depended-on-by", _ANY),
    _t("skip-level-reports-to", "skip-level-manages", _PP),
    _t("custom", None, _ANY, symmetric=True, requires_reason=True),
)


def _with_pairs(rtype: RelationType, spec: object) -> RelationType:
    """A seed type with the pairs a [relations.types.NAME] table adds (its name, inverse and symmetry
    stay: other notes and kbgraph itself rely on them)."""
    where = f"kbgraph.toml: [relations.types.{rtype.name}]"
    if not isinstance(spec, dict) or set(spec) - {"source", "target", "functional", "hierarchical"} or not spec:
        raise ConfigError(f"{where}: {rtype.name!r} is built in; its table may only add pairs"
                          " (source = [...], target = [...]), say which end is one at a time (functional)"
                          " or whether it is a hierarchy (hierarchical)")
    pairs = []
    for key in ("source", "target"):
        value = spec.get(key, [ANY])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: {key} must be a list of entity types")
    pairs = ([(a, b) for a in spec.get("source", [ANY]) for b in spec.get("target", [ANY])]
             if "source" in spec or "target" in spec else [])
    functional = _functional(spec["functional"], rtype.name) if "functional" in spec else rtype.functional
    hierarchical = (_hierarchical(spec["hierarchical"], rtype.name, rtype.symmetric) if "hierarchical" in spec
                    else rtype.hierarchical)
    return RelationType(rtype.name, rtype.inverse, tuple(dict.fromkeys(rtype.pairs + tuple(pairs))),
                        rtype.symmetric, rtype.requires_reason, functional, hierarchical)


def _functional(value: object, name: str) -> str | None:
    if value in (None, False, "none"):
        return None
    if value not in ("source", "target"):
        raise ConfigError(f"kbgraph.toml: relations.types.{name}.functional must be \"source\", \"target\""
                          f" or false, not {value!r}")
    return str(value)


def _hierarchical(value: object, name: str, symmetric: bool) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"kbgraph.toml: relations.types.{name}.hierarchical must be true or false, not {value!r}")
    if value and symmetric:
        raise ConfigError(f"kbgraph.toml: relations.types.{name} is symmetric, so it cannot be hierarchical"
                          " (a symmetric relation always holds both ways)")
    return value


def _behaving_like(rtype: RelationType, like: dict[str, str]) -> RelationType:
    """rtype with each custom type given every pair of the built-in type it behaves like."""
    pairs = list(rtype.pairs)
    for custom, builtin in like.items():
        for source, target in rtype.pairs:
            if source == builtin:
                pairs.append((custom, target))
            if target == builtin:
                pairs.append((source, custom))
            if source == builtin and target == builtin:
                pairs.append((custom, custom))
    for custom_a, builtin_a in like.items():  # two custom types that behave like a linked pair
        for custom_b, builtin_b in like.items():
            if (builtin_a, builtin_b) in rtype.pairs:
                pairs.append((custom_a, custom_b))
    return RelationType(rtype.name, rtype.inverse, tuple(dict.fromkeys(pairs)), rtype.symmetric,
                        rtype.requires_reason, rtype.functional, rtype.hierarchical)


@dataclass(frozen=True)
class Normalised:
    """A relation in canonical direction: (source, type, target) with source/target swapped if needed."""

    type: RelationType
    swapped: bool


class Vocabulary:
    def __init__(self, types: tuple[RelationType, ...] = SEED_TYPES):
        self.types = {t.name: t for t in types}
        self._inverse_of = {t.inverse: t for t in types if t.inverse}
        clash = set(self.types) & set(self._inverse_of)
        if clash:
            raise ConfigError(f"relation type names used both as a type and an inverse: {', '.join(sorted(clash))}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self.types == other.types

    __hash__ = None  # mutable-looking container semantics: compare, don't hash

    @classmethod
    def from_config(cls, extra: dict, like: dict[str, str] | None = None) -> "Vocabulary":
        """The seed vocabulary plus [relations.types.NAME] tables from kbgraph.toml. A table naming a
        seed type only adds entity-type pairs to it (source and target lists). like maps a custom
        entity type to a built-in one it behaves as: every pair the built-in has, it has too."""
        types = list(SEED_TYPES)
        known = {t.name for t in types} | {t.inverse for t in types if t.inverse}
        seed = {t.name: i for i, t in enumerate(types)}
        for name, spec in extra.items():
            if name in seed:
                types[seed[name]] = _with_pairs(types[seed[name]], spec)
                continue
            if name in known:
                raise ConfigError(f"kbgraph.toml: {name!r} is the inverse of a built-in type; add pairs under"
                                  f" the type's own name")
            if not isinstance(spec, dict):
                raise ConfigError(f"kbgraph.toml: [relations.types.{name}] must be a table")
            symmetric = bool(spec.get("symmetric", False))
            inverse = spec.get("inverse")
            if not symmetric and not inverse:
                raise ConfigError(f"kbgraph.toml: relation type {name!r} needs an inverse (or symmetric = true)")
            if not symmetric and (not isinstance(inverse, str) or inverse in known or inverse == name):
                raise ConfigError(f"kbgraph.toml: the inverse of {name!r} must be a new name, not {inverse!r}")
            sources = spec.get("source", [ANY])
            targets = spec.get("target", [ANY])
            for key, value in (("source", sources), ("target", targets)):
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(f"kbgraph.toml: relations.types.{name}.{key} must be a list of entity types")
            pairs = [(s, t) for s in sources for t in targets]
            types.append(_t(name, None if symmetric else inverse, pairs, symmetric, bool(spec.get("requires_reason")),
                            _functional(spec.get("functional"), name),
                            _hierarchical(spec.get("hierarchical", False), name, symmetric)))
            known |= {name, inverse}
        if like:
            types = [_behaving_like(t, like) for t in types]
        return cls(tuple(types))

    def symmetric_names(self) -> frozenset[str]:
        return frozenset(name for name, t in self.types.items() if t.symmetric)

    def names(self) -> list[str]:
        return sorted(set(self.types) | set(self._inverse_of))

    def normalise(self, type_name: str) -> Normalised:
        """The canonical type for a name given in either direction; unknown names suggest close ones."""
        key = (type_name or "").strip().lower().replace("_", "-").replace(" ", "-")
        if key in self.types:
            return Normalised(self.types[key], False)
        if key in self._inverse_of:
            return Normalised(self._inverse_of[key], True)
        close = difflib.get_close_matches(key, self.names(), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known types: {', '.join(self.names())}"
        raise InvalidInput(f"unknown relation type {type_name!r}{hint}")

    def label(self, type_name: str, outgoing: bool) -> str:
        """The type as read from one end: the canonical name from the source, the inverse from the target."""
        rtype = self.types.get(type_name)
        if rtype is None or outgoing or rtype.symmetric:
            return type_name
        return rtype.inverse or type_name

    def check_pair(self, rtype: RelationType, source: tuple[str, str], target: tuple[str, str]) -> None:
        """Refuse a type not allowed between the two entities' types, naming the allowed pairs."""
        (source_name, source_type), (target_name, target_type) = source, target
        if not rtype.allows(source_type, target_type):
            raise InvalidInput(
                f"{rtype.name} is not allowed from {source_type} {source_name!r} to {target_type} {target_name!r}; "
                f"{rtype.name} links {rtype.pairs_text()}"
            )

    def target_type_hint(self, type_name: str, source_type: str) -> str | None:
        """The only entity type the other end of a line can have, if the vocabulary fixes it."""
        try:
            normal = self.normalise(type_name)
        except InvalidInput:
            return None
        pairs = normal.type.pairs
        if normal.swapped:
            options = {s for s, t in pairs if t in (ANY, source_type)}
        else:
            options = {t for s, t in pairs if s in (ANY, source_type)}
        return next(iter(options)) if len(options) == 1 and ANY not in options else None
