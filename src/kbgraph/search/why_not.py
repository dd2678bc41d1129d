"""`--why-not PATH`: why a document is not among the results, as data.

The reasons, in the order they are checked: ignored (the vault's rules keep the path out: an
`[index] ignore` pattern, a hidden folder, an extension not indexed), not indexed (no such
document), filtered out (a --type, --path, date or tag filter excludes it), not related (with
--entity: it mentions neither the entity nor, expanded, a related one), no match (no signal ranked
it at all), below the cutoff (ranked, but after the last result shown). Each comes with what every
signal saw of it.
"""

from __future__ import annotations

from ..access import Access
from ..config import Config
from ..base.vault import shown_path, why_skipped
from ..store.base import Store


def why_not(store: Store, path: str, flt, parsed, order: list, limit: int, rankings: dict, seeds: list,
            pinned, access: Access, config: Config | None = None) -> dict:
    if shown_path(path) != path:  # bytes that are not UTF-8: never indexed, and not storable text
        return {"path": shown_path(path), "reason": "not-indexed",
                "detail": "its name is not valid UTF-8, so it is never indexed: rename it"}
    doc = store.get_document(access, path=path.removeprefix("./"))
    skipped = why_skipped(path.removeprefix("./"), config) if doc is None and config is not None else None
    if skipped is not None:  # the vault's own rules keep it out: indexing again would not bring it in
        return {"path": path, "reason": "ignored", "detail": skipped}
    if doc is None:
        return {"path": path, "reason": "not-indexed",
                "detail": "no such document in the index: is it in the vault, with an indexed extension, "
                          "not ignored, and indexed since it was added (`kbg index`)?"}
    signals = {signal: _rank_in(ranked, doc["id"]) for signal, ranked in rankings.items()}
    if not store.doc_passes(access, doc["id"], flt):
        return {"path": doc["path"], "reason": "filtered", "signals": signals,
                "detail": "a filter given (--type, --path, --from, --to or --tag) excludes it"}
    position = next((i for i, (doc_id, _) in enumerate(order, 1) if doc_id == doc["id"]), None)
    if position is not None and position <= limit:
        return {"path": doc["path"], "reason": "shown", "rank": position, "signals": signals,
                "detail": f"it is result {position}"}
    if position is not None:
        last = order[limit - 1][1][0] if len(order) >= limit else None
        return {"path": doc["path"], "reason": "below-cutoff", "rank": position,
                "score": round(order[position - 1][1][0], 6), "cutoff_score": round(last, 6) if last else None,
                "signals": signals, "detail": f"ranked {position}, after the {limit} shown (a larger limit shows it)"}
    if pinned is not None:
        return {"path": doc["path"], "reason": "not-related", "signals": signals,
                "detail": f"it does not mention {pinned.name}"
                          + ("" if "graph" in rankings and len(seeds) else "")
                          + " (or, with --expand-relations, an entity related to it within two hops)"}
    keyword = "matches none of the query's terms" if parsed.terms and not store.doc_matches(
        parsed.requiring("any"), doc["id"]) else "matches some terms, but not well enough to rank"
    return {"path": doc["path"], "reason": "no-match", "signals": signals,
            "detail": f"its text {keyword} (bm25); it is not among the nearest documents (vectors)"
                      + ("; it mentions none of the query's entities (graph)" if seeds else "")}


def _rank_in(ranked: list, doc_id: int) -> int | None:
    return next((i for i, r in enumerate(ranked, 1) if r.doc_id == doc_id), None)
