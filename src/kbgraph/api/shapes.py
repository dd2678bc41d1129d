"""The library's values as the JSON of docs/json.md: the same keys `kbg ... --json` prints."""

from __future__ import annotations

from ..model import as_dict


def search_json(query: str, result, why_not: str | None) -> dict:
    hits = [{"path": h.path, "line": h.line, "title": h.title, "kind": h.kind, "date": h.date, "heading": h.heading,
             "snippet": h.marked_snippet(), "score": h.score, "doc_id": h.doc_id, "chunk_id": h.chunk_id,
             "via": h.via, "duplicates": list(h.duplicates), "explain": as_dict(h.explain) if h.explain else None,
             "passage": as_dict(h.passage) if h.passage else None} for h in result.hits]
    body = {"query": query, "unit": result.unit, "mode": result.mode, "signals": list(result.signals),
            "entities": list(result.entities), "ambiguous": list(result.ambiguous), "notes": list(result.notes),
            "count": len(hits), "hits": hits}
    if why_not is not None:
        body["why_not"] = result.why_not
    return body


def recall_json(answer) -> dict:
    def tie(t):
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


def context_json(result) -> dict:
    passages = [{**as_dict(p), "citation": p.citation} for p in result.passages]
    return {"topic": result.topic, "budget": result.budget, "items": result.items, "tokens": result.tokens,
            "tokenizer": result.tokenizer, "exact": result.exact, "text": result.text,
            "entities": [as_dict(e) for e in result.entities], "passages": passages, "left_out": result.left_out,
            "ambiguous": list(result.ambiguous), "notes": list(result.notes)}


def slice_json(result) -> dict:
    return {"entities": [as_dict(s) for s in result.entities], "text": result.text, "tokens": result.tokens,
            "tokenizer": result.tokenizer, "exact": result.exact, "notes": list(result.notes)}


def loop_json(item, today: str) -> dict:
    from ..context.loops import is_overdue

    return {**as_dict(item), "overdue": is_overdue(item, today)}


def recorded_json(result, key: str) -> dict:
    """A fact or loop just written: the item, the page it went to, warnings (and, for a fact, what it replaced)."""
    from ..context.memory import today_iso

    item = loop_json(result.item, today_iso()) if key == "loop" else as_dict(result.item)
    extra = {"replaced": as_dict(result.replaced) if result.replaced else None} if key == "fact" else {}
    return {key: item, "page": result.page, "warnings": list(result.warnings), **extra}
