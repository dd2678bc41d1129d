"""The library's answers as the JSON of docs/json.md: one definition of each shape, which every door
(`kbg ... --json`, the HTTP API, the MCP server's structured content) prints as is."""

from __future__ import annotations

from typing import Any

from .model import as_dict


def search_json(result: Any, why_not_asked: bool = False) -> dict:
    """`kbg search --json`: the envelope and its hits, and why_not when it was asked (null when the
    query had nothing to search) or given."""
    hits = [{"path": h.path, "line": h.line, "title": h.title, "kind": h.kind, "date": h.date, "heading": h.heading,
             "snippet": h.marked_snippet(), "score": h.score, "doc_id": h.doc_id, "chunk_id": h.chunk_id,
             "via": h.via, "duplicates": list(h.duplicates), "explain": as_dict(h.explain) if h.explain else None,
             "passage": as_dict(h.passage) if h.passage else None} for h in result.hits]
    data = {"query": result.query, "unit": result.unit, "mode": result.mode, "signals": list(result.signals),
            "entities": list(result.entities), "ambiguous": list(result.ambiguous), "notes": list(result.notes),
            "count": len(hits), "hits": hits}
    if why_not_asked or result.why_not is not None:
        data["why_not"] = result.why_not
    return data


def recall_json(answer: Any) -> dict:
    """`kbg recall --json`."""
    def tie(t: Any) -> dict:
        return {"term": t.term, "id": t.person_id, "name": t.person, "relation": t.relation}

    def facts(items: Any) -> list[dict]:
        return [{"id": f.id, "kind": f.kind, "text": f.text, "date": f.date, "source": f.source} for f in items]

    def passages(hits: Any) -> list[dict]:
        return [{"path": h.path, "line": h.line, "heading": h.heading, "snippet": h.marked_snippet(),
                 "score": h.score, "via": h.via, "date": h.date} for h in hits]

    return {
        "query": answer.query, "status": answer.status, "why": answer.why, "owner": answer.owner,
        "terms": list(answer.terms), "person": tie(answer.tie) if answer.tie else None,
        "candidates": [tie(c) for c in answer.candidates],
        "facts": facts(answer.facts), "passages": passages(answer.passages),
        "people": [{"id": p.person_id, "name": p.person, "relations": [tie(t) for t in p.ties],
                    "facts": facts(p.facts), "passages": passages(p.passages)} for p in answer.people],
    }


def context_json(result: Any) -> dict:
    """`kbg context --json`."""
    passages = [{**as_dict(p), "citation": p.citation} for p in result.passages]
    return {"topic": result.topic, "budget": result.budget, "items": result.items, "tokens": result.tokens,
            "tokenizer": result.tokenizer, "exact": result.exact, "text": result.text,
            "entities": [as_dict(e) for e in result.entities], "passages": passages, "left_out": result.left_out,
            "ambiguous": list(result.ambiguous), "notes": list(result.notes)}


def slice_json(result: Any) -> dict:
    """`kbg slice --json`."""
    return {"entities": [as_dict(s) for s in result.entities], "text": result.text, "tokens": result.tokens,
            "tokenizer": result.tokenizer, "exact": result.exact, "notes": list(result.notes)}


def loop_json(item: Any, today: str | None = None) -> dict:
    """A loop with whether it is overdue today (or on `today`)."""
    from .context.loops import is_overdue
    from .context.memory import today_iso

    return {**as_dict(item), "overdue": is_overdue(item, today or today_iso())}


def recorded_json(recorded: Any, key: str) -> dict:
    """`kbg fact add|supersede --json` and `kbg loop add|resolve --json`: the item, the page it went to,
    warnings, and for a fact what it replaced."""
    data = {key: loop_json(recorded.item) if key == "loop" else as_dict(recorded.item), "page": recorded.page,
            "warnings": list(recorded.warnings)}
    if key == "fact":
        data["replaced"] = as_dict(recorded.replaced) if recorded.replaced else None
    return data


def captured_json(result: Any) -> dict:
    """`kbg note --json`: what a capture stored, and each question (with its CONFIRM? line) when it stored nothing."""
    return {**as_dict(result), "questions": [{**as_dict(q), "text": str(q)} for q in result.questions]}


def index_status_json(store: Any, root: Any, access: Any) -> dict:
    """`kbg index status --json`: the store's counts and sizes, where the vault and its index are, and problems.
    A reader who may not read every row (a token) gets the counts of what it may read, and neither the
    index's size on disk nor the files with problems, which would tell it that other notes exist."""
    from dataclasses import asdict

    stats = store.stats(access)
    everything = access.sees_everything
    stats.update(vault=str(root), index_path=getattr(store, "path", None),
                 index_bytes=store.size_on_disk() if everything else None,
                 problems=[asdict(p) for p in store.problems()] if everything else [])
    return stats
