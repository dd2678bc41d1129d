"""Who may read an entity and a relation, derived from the notes they come from, so that a reader with
an access context sees a name or an edge only where it could have read it in a note.

- An entity with a page reads as its page (the most readable of its pages, when merged ones are kept).
- An entity without one reads as the most readable note that names it: a reader of any of them has seen
  the name. One named by no note (asserted by a user) reads as the vault's `[access]` default.
- A relation reveals both its ends and, when a page states it, that page: it reads as the least
  readable of them.
- A suggested relation shows sentences from its evidence: it reads as the least readable of the notes
  they come from (its ends are checked on every read besides). A resolution question shows a name as
  read in one note: it reads as that note; one from no note, as the vault's default.

Pure functions over what the store returns; the index stage in pipeline.py writes what changed."""

from __future__ import annotations

from ..access import Governance, least_readable, most_readable
from ..config import Config
from ..model import EntityClaim

RULES_VERSION = "1"  # move on when the rules above change: every entity is derived again


def vault_default(config: Config) -> Governance:
    """The vault's own `[access]` values (not a folder's), private and normal where it sets none."""
    rule = next((r for r in config.access_rules if not r.folder), None)
    if rule is None:
        return Governance()
    return Governance(rule.owner, rule.visibility or "private", rule.sensitivity or "normal")


def entity_governance(entity_ids: dict[str, int], pages: dict[int, int], claims: list[EntityClaim],
                      resolved: dict[tuple[int, str, str], str], documents: dict[int, Governance],
                      default: Governance) -> dict[int, Governance]:
    """Entity id -> its governance. pages: page document id -> entity id; resolved: (doc id, type, name)
    of a reference claim -> the key of the entity it names."""
    from ..entities.assemble import entity_key

    by_page: dict[int, list[Governance]] = {}
    for doc_id, entity_id in pages.items():
        if doc_id in documents:
            by_page.setdefault(entity_id, []).append(documents[doc_id])
    named_in: dict[int, list[Governance]] = {}
    for claim in claims:
        if claim.role == "page" or claim.doc_id not in documents:
            continue  # pages are above; a user's assertion (doc id 0) leaves the default
        key = resolved.get((claim.doc_id, claim.type, claim.name)) or entity_key(claim.type, claim.name)
        if key in entity_ids:
            named_in.setdefault(entity_ids[key], []).append(documents[claim.doc_id])
    return {entity_id: most_readable(by_page.get(entity_id) or named_in.get(entity_id) or [default]) or default
            for entity_id in entity_ids.values()}


def relation_governance(relations: dict[int, tuple[int, int, int | None, Governance]],
                        entities: dict[int, Governance], documents: dict[int, Governance]) -> dict[int, Governance]:
    """Relation id -> its governance, for the relations whose ends are known."""
    out = {}
    for relation_id, (source_id, target_id, page_id, _) in relations.items():
        if source_id in entities and target_id in entities:
            parts = [entities[source_id], entities[target_id]]
            if page_id is not None and page_id in documents:
                parts.append(documents[page_id])
            out[relation_id] = least_readable(parts) or Governance()
    return out


def suggestion_governance(suggestions: dict[int, tuple[list[int], Governance]], documents: dict[int, Governance],
                          default: Governance) -> dict[int, Governance]:
    """Suggestion id -> its governance."""
    return {suggestion_id: least_readable([documents[d] for d in doc_ids if d in documents]) or default
            for suggestion_id, (doc_ids, _) in suggestions.items()}


def decision_governance(decisions: dict[int, tuple[int | None, Governance]], documents: dict[int, Governance],
                        default: Governance) -> dict[int, Governance]:
    """Resolution decision id -> its governance."""
    return {decision_id: documents.get(doc_id, default) if doc_id is not None else default
            for decision_id, (doc_id, _) in decisions.items()}
