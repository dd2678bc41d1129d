"""What a tool returns: compact text an agent can act on, plus the JSON shape of docs/json.md as
structured content. The shapes repeat the CLI's (an interface never imports another)."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations

from ..model import as_dict

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def write(destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """Annotations of a tool that changes the vault or its index (never read-only)."""
    return ToolAnnotations(read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent,
                           open_world_hint=False)


def result(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def lines(*parts: str | None) -> str:
    return "\n".join(p for p in parts if p)


def search_json(result_: Any, query: str) -> dict:
    """`kbg search --json`: the envelope and its hits."""
    hits = [{"path": h.path, "line": h.line, "title": h.title, "kind": h.kind, "date": h.date, "heading": h.heading,
             "snippet": h.marked_snippet(), "score": h.score, "doc_id": h.doc_id, "chunk_id": h.chunk_id,
             "via": h.via, "duplicates": list(h.duplicates), "explain": as_dict(h.explain) if h.explain else None,
             "passage": as_dict(h.passage) if h.passage else None} for h in result_.hits]
    data = {"query": query, "unit": result_.unit, "mode": result_.mode, "signals": list(result_.signals),
            "entities": list(result_.entities), "ambiguous": list(result_.ambiguous), "notes": list(result_.notes),
            "count": len(hits), "hits": hits}
    if result_.why_not is not None:
        data["why_not"] = result_.why_not
    return data


def context_json(result_: Any) -> dict:
    """`kbg context --json`."""
    passages = [{**as_dict(p), "citation": p.citation} for p in result_.passages]
    return {"topic": result_.topic, "budget": result_.budget, "items": result_.items, "tokens": result_.tokens,
            "tokenizer": result_.tokenizer, "exact": result_.exact, "text": result_.text,
            "entities": [as_dict(e) for e in result_.entities], "passages": passages, "left_out": result_.left_out,
            "ambiguous": list(result_.ambiguous), "notes": list(result_.notes)}


def slice_json(result_: Any) -> dict:
    """`kbg slice --json`."""
    return {"entities": [as_dict(s) for s in result_.entities], "text": result_.text, "tokens": result_.tokens,
            "tokenizer": result_.tokenizer, "exact": result_.exact, "notes": list(result_.notes)}


def recall_json(answer: Any) -> dict:
    """`kbg recall --json`."""
    def tie(t: Any) -> dict:
        return {"term": t.term, "id": t.person_id, "name": t.person, "relation": t.relation}

    return {
        "query": answer.query, "status": answer.status, "why": answer.why, "owner": answer.owner,
        "terms": list(answer.terms), "person": tie(answer.tie) if answer.tie else None,
        "candidates": [tie(c) for c in answer.candidates],
        "facts": [{"id": f.id, "kind": f.kind, "text": f.text, "date": f.date, "source": f.source}
                  for f in answer.facts],
        "passages": [{"path": h.path, "line": h.line, "heading": h.heading, "snippet": h.marked_snippet(),
                      "score": h.score, "via": h.via, "date": h.date} for h in answer.passages],
    }


def loop_json(item: Any) -> dict:
    from ..context.loops import is_overdue
    from ..context.memory import today_iso

    return {**as_dict(item), "overdue": is_overdue(item, today_iso())}


def recorded_json(recorded: Any, key: str) -> dict:
    """`kbg fact add|supersede --json` and `kbg loop add|resolve --json`."""
    data = {key: loop_json(recorded.item) if key == "loop" else as_dict(recorded.item), "page": recorded.page,
            "warnings": list(recorded.warnings)}
    if key == "fact":
        data["replaced"] = as_dict(recorded.replaced) if recorded.replaced else None
    return data
