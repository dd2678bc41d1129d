"""An optional LLM extractor: one constrained-JSON call per section to an OpenAI-compatible endpoint.

Off unless kbgraph.toml has [extract.llm] (works with Ollama, llama.cpp server, vLLM, hosted APIs).
The model only proposes: every relation it returns is checked against the vocabulary and the entities
actually mentioned in the section, and its evidence must be text of the section. Whatever fails a
check is reported for that section (never silently dropped); what passes becomes a low-confidence
suggestion like the pattern rules' ones.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.request

from ..access import LOCAL
from ..config import LlmConfig
from ..store.base import Store

RESPONSE_SCHEMA = {
    "type": "object",
    "properties": {
        "relations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"}, "type": {"type": "string"},
                    "target": {"type": "string"}, "evidence": {"type": "string"},
                },
                "required": ["source", "type", "target", "evidence"],
            },
        }
    },
    "required": ["relations"],
}


MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class LlmUnavailable(Exception):
    """The endpoint cannot be reached or answered with an HTTP error."""


def request_body(config: LlmConfig, text: str, entities: dict[str, str], vocab) -> dict:
    types = ", ".join(sorted(vocab.types))
    listed = "\n".join(f"- {name} ({entity_type})" for name, entity_type in sorted(entities.items()))
    prompt = (
        "List the relations this text states between the entities listed below. Use only these entity "
        f"names, exactly as written, and only these relation types: {types}. Give each relation in its "
        "canonical direction with the exact sentence from the text as evidence. Leave out anything "
        "negated, hypothetical or only implied. Answer with JSON only.\n\n"
        f"Entities:\n{listed}\n\nText:\n{text}"
    )
    return {
        "model": config.model,
        "temperature": 0,
        "messages": [{"role": "system", "content": "You extract typed relations from notes as JSON."},
                     {"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema",
                            "json_schema": {"name": "relations", "schema": RESPONSE_SCHEMA, "strict": True}},
    }


def call(config: LlmConfig, body: dict) -> str:
    """The model's message content; LlmUnavailable for network and HTTP errors."""
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(config.api_key_env) if config.api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(config.url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=config.timeout_s) as response:
            raw = response.read(MAX_RESPONSE_BYTES + 1)
        if len(raw) > MAX_RESPONSE_BYTES:
            raise LlmUnavailable(f"{config.url} answered with more than {MAX_RESPONSE_BYTES // 1024} KB")
        payload = json.loads(raw.decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise LlmUnavailable(f"HTTP {exc.code} from {config.url}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError, TimeoutError) as exc:
        raise LlmUnavailable(f"cannot reach {config.url}: {getattr(exc, 'reason', exc)!s:.120}") from None
    except (ValueError, UnicodeDecodeError):
        raise LlmUnavailable(f"{config.url} did not answer with JSON") from None
    try:
        return payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LlmUnavailable(f"{config.url} answered without choices[0].message.content") from None


def parse(content: str, text: str, entities: dict[str, tuple[int, str]], vocab) -> tuple[list[dict], list[str]]:
    """Relations that pass every check, and one problem message per thing that did not."""
    try:
        data = json.loads(content)
    except (TypeError, ValueError):
        return [], [f"model output is not JSON: {str(content)[:80]!r}"]
    items = data.get("relations") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], ["model output has no \"relations\" list"]
    found, problems = [], []
    for index, item in enumerate(items, 1):
        where = f"relation {index}"
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("source", "type", "target")):
            problems.append(f"{where}: needs source, type and target as text")
            continue
        source, target = entities.get(item["source"]), entities.get(item["target"])
        if source is None or target is None:
            missing = item["source"] if source is None else item["target"]
            problems.append(f"{where}: {missing!r} is not an entity mentioned in this section")
            continue
        try:
            normal = vocab.normalise(item["type"])
        except Exception as exc:  # InvalidInput: an unknown type, named as such
            problems.append(f"{where}: {exc}")
            continue
        if normal.swapped or (normal.type.symmetric and source[0] > target[0]):
            source, target = target, source
        if source[0] == target[0] or not normal.type.allows(source[1], target[1]):
            problems.append(f"{where}: {item['source']} --{item['type']}--> {item['target']} is not allowed")
            continue
        evidence = " ".join(str(item.get("evidence", "")).split())
        if not evidence or evidence not in " ".join(text.split()):
            problems.append(f"{where}: its evidence is not text of this section")
            continue
        found.append({"source_id": source[0], "target_id": target[0], "type": normal.type.name,
                      "evidence": evidence})
    return found, problems


def extract_document(config: LlmConfig, store: Store, vocab, doc_id: int, path: str, names: dict[int, tuple[str, str]]):
    """Suggestions the model makes for one document, and (line, message) problems; LlmUnavailable stops it."""
    _, mentions = store.chunk_mentions(doc_id)
    in_chunk: dict[int, set[int]] = {}
    for entity_id, chunk_id, _, _ in mentions:
        in_chunk.setdefault(chunk_id, set()).add(entity_id)
    found, problems = [], []
    for chunk in store.document_chunks(LOCAL, doc_id):
        ids = in_chunk.get(chunk["id"], set())
        if len(ids) < 2:
            continue
        entities = {names[i][0]: (i, names[i][1]) for i in ids}
        content = call(config, request_body(config, chunk["text"], {n: t for n, (_, t) in entities.items()}, vocab))
        relations, chunk_problems = parse(content, chunk["text"], entities, vocab)
        problems += [(chunk["line"], message) for message in chunk_problems]
        found += [{**r, "confidence": "auto-low", "rule": f"llm:{config.model}", "start": chunk["start"],
                   "end": chunk["end"], "sentence": r.pop("evidence")} for r in relations]
    return found, problems
