"""The output schema each tool lists: the top-level keys of its structured content (the JSON of
docs/json.md, which every door prints), each with its JSON type. Declared here, in one table, rather
than as a return annotation on each tool body: a tool builds its own CallToolResult, and the SDK would
only take a schema from an `Annotated[CallToolResult, Model]` return, one model per tool.

The schemas promise what the shapes promise and no more: the keys every answer of the tool has are
required, a key some answers have is `?`; a scalar or object may be null; other keys may be added (new
keys are not a break, docs/json.md), so additionalProperties stays open. An error result (isError) has
the error object instead and is not held to the schema. A client validates each answer against it, so
the MCP tests, which call every tool, fail when a shape and its schema drift apart.
"""

from __future__ import annotations

from typing import Any

# key:type, with `?` after the key when some answers lack it. Types: s string, i integer, n number,
# b boolean, a array, o object; `|` joins two.
OUTPUTS: dict[str, str] = {
    "brief": "about:s today:s items:a",
    "conflicts": "count:i conflicts:a",
    "context": "topic:s budget:i items:i tokens:i tokenizer:s exact:b text:s entities:a passages:a left_out:i ambiguous:a notes:a",
    "document_list": "count:i documents:a",
    "document_relations": "path:s doc_id:i count:i total:i relations:a",
    "document_view": "document:o line:i stale:b chunk?:o text:s chunks:a",
    "entity_candidates": "count:i candidates:a",
    "entity_find": "entity:o",
    "entity_list": "count:i entities:a",
    "entity_merge": "merged:s into:s type:s aliases:a relations_moved:i duplicates_collapsed:i self_relations_dropped:a pages_edited:a",
    "entity_profile": "entity:o confirmed_names:a as_of:s relations:o connected:o documents:i pages:a first_seen:s last_seen:s recent_documents:a",
    "entity_stale": "today:s days:i cutoff:s entities:a relations?:a",
    "entity_timeline": "entity:o count:i documents:a",
    "entity_unmerge": "unmerged:s from:s type:s relations_restored:i",
    "extract": "documents:i pending:a problems:a",
    "fact_add": "fact:o page:s warnings:a replaced:o",
    "fact_list": "entity:s count:i facts:a",
    "fact_supersede": "fact:o page:s warnings:a replaced:o",
    "graph_hubs": "by:s hubs:a count:i types:a as_of:s",
    "graph_neighbours": "entity:s entity_id:i entity_type:s depth:i direction:s types:a as_of:s levels:a count:i truncated:b",
    "graph_path": "source:s source_id:i target:s target_id:i hops:i paths:a count:i truncated:b types:a as_of:s",
    "index_status": "documents:i chunks:i entities:i mentions:i relations:i links:i bytes_indexed:i documents_by_kind:o entities_by_type:o last_indexed:s last_run_seconds:n schema:a vault:s index_path:s index_bytes:i problems:a",
    "loop_add": "loop:o page:s warnings:a",
    "loop_list": "entity:s due:s count:i loops:a",
    "loop_resolve": "loop:o page:s warnings:a",
    "mention_link": "entity:s path:s surface:s link:s remaining:i changed:b",
    "mention_relink": "entity:s path:s unlinked:b changed:b",
    "mention_unlink": "entity:s path:s unlinked:b changed:b",
    "mentions_unlinked": "count:i mentions:a",
    "note": "stored:b entity:s created:b facts:a loops:a aliases:a daily_note:s questions:a warnings:a",
    "recall": "query:s status:s why:s owner:s terms:a person:o candidates:a facts:a passages:a people:a",
    "relate": "source:s target:s type:s reason:s since:s valid_until:s confidence:s source_doc:s strength:i expired:b origin:s mirrored_to:s conflicts:a",
    "relations_list": "type?:s count?:i relations:a entity?:s entity_id?:i entity_type?:s inverse_relations?:a total?:o truncated?:b expired?:i",
    "resolution_confirm": "id:i outcome:s surface:s entity:s documents:a aliases:a confirmed_names?:a lookup?:s also_named?:a",
    "resolution_log": "count:i decisions:a",
    "resolution_pending": "count:i questions:a",
    "resolution_reject": "id:i outcome:s surface:s entity:s",
    "resolve_conflict": "id:i kind:s type:s subject:s old:o new:o status:s resolution:s note:s",
    "search": "query:s unit:s mode:s signals:a entities:a ambiguous:a notes:a count:i hits:a",
    "slice": "entities:a text:s tokens:i tokenizer:s exact:b notes:a",
    "suggestion_accept": "id:i status:s relation:o evidence:a note:s created:a",
    "suggestion_reject": "id:i status:s",
    "suggestions_list": "status:s count:i suggestions:a",
    "unrelate": "removed:b source:s type:s target:s page:s",
}

_JSON = {"s": "string", "i": "integer", "n": "number", "b": "boolean", "a": "array", "o": "object"}


def output_schema(tool: str) -> dict[str, Any] | None:
    """The JSON schema of `tool`'s structured content; None for a tool not in the table."""
    spec = OUTPUTS.get(tool)
    if spec is None:
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for item in spec.split():
        key, _, codes = item.partition(":")
        if not key.endswith("?"):
            required.append(key)
        types = [_JSON[c] for c in codes.split("|")]
        properties[key.rstrip("?")] = {"type": types[0] if types == ["array"] else [*types, "null"]}
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": True}
