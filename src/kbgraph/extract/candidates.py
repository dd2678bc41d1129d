"""Candidate entities: names the notes use that kbgraph does not know yet, each with the rule that found it.

Pure pattern rules over text. Nothing here creates an entity: `kbg entity candidates` lists what the
rules find, most frequent first, so a person can give the real ones a page (or `relate --create`).
"""

from __future__ import annotations

from ..access import Access
from ..entities.mentions import trie_pattern
from ..entities.prose_names import find_prose_names
from ..store.base import DocFilter, Store

import re
from dataclasses import dataclass

# A short list of widely used technologies, matched as whole words in any case.
TECHNOLOGIES = (
    "Airflow", "Ansible", "Apache Spark", "BigQuery", "Cassandra", "ClickHouse", "Consul", "CouchDB", "Datadog",
    "Django", "Docker", "DynamoDB", "Elasticsearch", "Envoy", "etcd", "FastAPI", "Flask", "Flink", "GitHub Actions",
    "GitLab", "gRPC", "Grafana", "GraphQL", "Hadoop", "Helm", "Istio", "Jaeger", "Jenkins", "Kafka", "Kibana",
    "Kotlin", "Kubernetes", "Linkerd", "Memcached", "MongoDB", "MySQL", "Nginx", "Node.js", "Nomad", "OpenSearch",
    "OpenTelemetry", "PostgreSQL", "Prometheus", "Pulsar", "RabbitMQ", "React", "Redis", "Redshift", "Rust",
    "S3", "Snowflake", "Spark", "SQLite", "Terraform", "TypeScript", "Vault", "Vue", "Zookeeper",
)
# A trie of the folded names, matched case-sensitively in lower-cased text: the same matches as an
# alternation of the names with IGNORECASE, at a third of its cost on every chunk an index run reads
# (bench/RESULTS.md, "kbgraph against kbx"). Text whose lower-casing changes its length keeps the IGNORECASE pattern.
_TECH_TRIE = trie_pattern(t.casefold() for t in TECHNOLOGIES)
_TECH_LOWER = re.compile(r"(?<![\w.-])(" + _TECH_TRIE + r")(?![\w-])")
_TECH = re.compile(_TECH_LOWER.pattern, re.IGNORECASE)
_CANONICAL_TECH = {t.casefold(): t for t in TECHNOLOGIES}

_RULES = (
    ("handle", "person", re.compile(r"(?<![\w@.])@([A-Za-z0-9][A-Za-z0-9-]{1,38})(?![\w@])")),
    ("issue-key", "concept", re.compile(r"(?<![\w-])([A-Z][A-Z0-9]{1,9}-\d{1,6})(?![\w-])")),
    ("url", "concept", re.compile(r"(https?://[^\s<>()\[\]\"'`]+[^\s<>()\[\]\"'`.,;:!?])")),
    ("path", "concept", re.compile(r"(?<![\w/:.])((?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,6})(?![\w/])")),
    ("camel-case", "concept", re.compile(r"(?<![\w.])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)(?![\w.])")),
    ("code", "concept", re.compile(r"`([A-Za-z_][\w.:/-]{1,60})`")),
)


@dataclass(frozen=True)
class Candidate:
    surface: str
    type: str
    rule: str
    start: int
    end: int


def find_candidates(text: str) -> list[Candidate]:
    """Every candidate the rules find in text, in order (one per span: the first rule wins)."""
    out: list[Candidate] = []
    taken: list[tuple[int, int]] = []

    def add(surface: str, entity_type: str, rule: str, start: int, end: int) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        out.append(Candidate(surface, entity_type, rule, start, end))

    for rule, entity_type, pattern in _RULES:
        for match in pattern.finditer(text):
            group = next(g for g in range(1, (pattern.groups or 0) + 1) if match.group(g))
            add(match.group(group), entity_type, rule, match.start(group), match.end(group))
    for name in find_prose_names(text):  # "thanks Priya Raman", "Zoë O'Brien said": as resolve/prose.py reads them
        add(name.surface, "person", "name-in-context", name.start, name.end)
    for start, end, name in _technologies(text):
        add(name, "technology", "technology-list", start, end)
    return sorted(out, key=lambda c: c.start)


# Candidates whose kind is clear enough to be the end of a suggested relation before the entity exists.
_CLEAR_HANDLE = _RULES[0][2]


def _technologies(text: str):
    """(start, end, canonical name) of each technology of the list named in text."""
    lowered = text.lower()
    matches = _TECH_LOWER.finditer(lowered) if len(lowered) == len(text) else _TECH.finditer(text)
    for m in matches:
        yield m.start(1), m.end(1), _CANONICAL_TECH[text[m.start(1):m.end(1)].casefold()]


def clear_kind_candidates(text: str) -> list[Candidate]:
    """Technologies of the bundled list and @handles (people) in text: the names whose entity type is
    not in doubt, so a relation to one can be suggested and the entity created when it is accepted."""
    out = [Candidate(name, "technology", "technology-list", start, end) for start, end, name in _technologies(text)]
    out += [Candidate("@" + m.group(1), "person", "handle", m.start(), m.end()) for m in _CLEAR_HANDLE.finditer(text)]
    return sorted(out, key=lambda c: c.start)


def collect(store: Store, entity_type: str | None = None, min_count: int = 2, limit: int | None = 100, *,
            access: Access) -> list[dict]:
    """Candidates across the notes the access may read that name no entity it knows, most frequent first.

    Each: surface, type, rule, count (occurrences), documents (how many), example (a document path).
    Fenced code is read only by the `code` rule's backticks, never for names.
    """
    from ..base.markdown import parse_sections
    from ..entities.names import name_key

    known = {name_key(name) for _, name in store.all_entity_names(access)}
    # A name in prose the resolver linked or asked about is no candidate (resolve/prose.py); a rejected one is.
    known |= {name_key(d["surface"]) for d in store.decisions(access) if d["features"].get("prose")
              and d["outcome"] != "rejected"}
    readable = None if access.sees_everything else {d["path"] for d in store.list_documents(access, DocFilter())}
    seen: dict[tuple[str, str], dict] = {}
    for doc_path, text in store.all_chunk_texts():
        if readable is not None and doc_path not in readable:
            continue
        fences = parse_sections(text)[1] if ("```" in text or "~~~" in text) else []
        for cand in find_candidates(text):
            if entity_type and cand.type != entity_type:
                continue
            if any(s <= cand.start < e for s, e in fences) or name_key(cand.surface) in known:
                continue
            row = seen.setdefault((cand.type, name_key(cand.surface)), {
                "surface": cand.surface, "type": cand.type, "rule": cand.rule, "count": 0, "documents": set(),
                "example": doc_path})
            row["count"] += 1
            row["documents"].add(doc_path)
    rows = [{**r, "documents": len(r["documents"])} for r in seen.values() if r["count"] >= min_count]
    rows.sort(key=lambda r: (-r["count"], -r["documents"], r["surface"]))
    return rows[:limit] if limit else rows
