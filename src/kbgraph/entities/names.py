"""Name normalisation shared by entity assembly, mention matching and lookup."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def fold_char(char: str) -> str:
    """A character without its accents, when that keeps it one character (é→e, ø stays ø)."""
    if char.isascii():
        return char
    base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return base if len(base) == 1 else char


def fold(text: str) -> str:
    """Accent-folded text of the same length, so spans found in it apply to the original."""
    if text.isascii():
        return text
    return "".join(fold_char(c) for c in text)


_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


@lru_cache(maxsize=1 << 17)
def name_key(name: str) -> str:
    """The key two spellings of one name share: folded, lower-cased, single-spaced. Cached: assembling
    the entities keys every claim, and a vault's thousands of claims spell a few hundred names."""
    return _SPACES.sub(" ", fold(name).strip()).casefold()


def loose_key(name: str) -> str:
    """name_key with punctuation read as a space: "KEP-950" and "KEP 950", "pod-startup" and
    "pod startup" agree. Used to recognise names in a query, where punctuation is often dropped."""
    return " ".join(_NOT_WORD.split(name_key(name))).strip()


def clean_reference(value: str) -> str:
    """A frontmatter reference without wikilink brackets, an alias suffix or typographic quotes around
    it ("“@mortent”", pasted from a word processor, is @mortent)."""
    value = value.strip()
    if len(value) > 2 and (value[0], value[-1]) in _QUOTE_PAIRS:
        value = value[1:-1].strip()
    if value.startswith("[[") and value.endswith("]]"):
        value = value[2:-2].split("|", 1)[0].split("#", 1)[0]
    return _SPACES.sub(" ", value).strip()


_QUOTE_PAIRS = {("“", "”"), ("‘", "’"), ("«", "»"), ("„", "“"), ('"', '"'), ("'", "'")}


def as_name_list(value: object) -> list[str]:
    """Names from a frontmatter value: a string (comma-separated allowed) or a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        # A wikilink may itself hold a comma-free alias; split outside brackets only.
        parts = value.split(",") if "[[" not in value else re.findall(r"\[\[[^\]]+\]\]|[^,]+", value)
        return [p for p in (clean_reference(x) for x in parts) if p]
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for item in value:
            if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                cleaned = clean_reference(str(item))
                if cleaned:
                    out.append(cleaned)
            elif isinstance(item, dict) and isinstance(item.get("name"), str):
                cleaned = clean_reference(item["name"])
                if cleaned:
                    out.append(cleaned)
        return out
    return []


def page_link_keys(page_path: str) -> tuple[str, str]:
    """The keys a [[link]] may use for a page: its file name and its vault path, both without extension."""
    without_ext = page_path.rsplit(".", 1)[0] if "." in page_path.rsplit("/", 1)[-1] else page_path
    return name_key(without_ext.rsplit("/", 1)[-1]), name_key(without_ext)


def listed_names(value: object) -> list[str]:
    """Names in a frontmatter list value, the unquoted wikilink form (`[[X]]`, read by YAML as a
    nested list) included."""
    if isinstance(value, list):
        flat: list[object] = []
        for item in value:
            flat.extend(item if isinstance(item, list) else [item])
        value = flat
    return as_name_list(value)
