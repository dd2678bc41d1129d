"""One value added to a list key of a page's frontmatter, as one new line: nothing else moves.

    add_list_value(text, body_offset, "same_as", "[[Jonathan Smith]]")

The key missing, a line `same_as: "[[Jonathan Smith]]"` goes just before the closing fence (a page
without frontmatter gets a three-line block on top). The key holding a block list, an item
`  - "[[...]]"` goes after its last item. The value there already, nothing changes. Any other shape
(a scalar or a flow list the user wrote) is refused rather than rewritten. The new frontmatter is
parsed again and must equal the old one plus the value, or nothing is written.
"""

from __future__ import annotations

import json
import re

from ..entities.names import clean_reference, listed_names, name_key
from ..errors import InvalidInput

_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_ITEM = re.compile(r"^([ \t]*)-[ \t]")


def add_list_value(text: str, body_offset: int, key: str, value: str, as_list: bool = False) -> str:
    """text with value added to the list under key (see the module docstring); text itself when present.
    as_list: a missing key is written as a one-item flow list (`key: ["C# Team"]`), for a value that a
    string would not keep whole (a name with '#' or '|' is not a wikilink; a comma splits a string)."""
    # JSON is valid YAML: a JSON string is a double-quoted scalar, a JSON list a flow sequence.
    line = f"{key}: {json.dumps([value] if as_list else value, ensure_ascii=False)}\n"
    if body_offset == 0 and not text.startswith("---"):
        return _checked(text, f"---\n{line}---\n" + text, key, value)
    first_newline = text.find("\n")
    close = _CLOSE.search(text, first_newline + 1)
    if close is None:
        raise InvalidInput("the page's frontmatter is never closed; fix it before kbgraph edits the page")
    start, end = first_newline + 1, close.start()
    raw = text[start:end]
    data = _load(raw)
    if key in data:
        if name_key(clean_reference(value)) in {name_key(n) for n in listed_names(data[key])}:
            return text
        return _checked(text, text[:start] + _append_item(raw, key, value) + text[end:], key, value)
    glue = "" if not raw or raw.endswith("\n") else "\n"
    return _checked(text, text[:end] + glue + line + text[end:], key, value)


def _append_item(raw: str, key: str, value: str) -> str:
    lines = raw.splitlines(keepends=True)
    key_line = re.compile(rf"{re.escape(key)}[ \t]*:[ \t]*(#.*)?$")
    head = next((i for i, ln in enumerate(lines) if key_line.match(ln.rstrip("\n"))), None)
    if head is None:
        raise InvalidInput(f"the page's `{key}:` is not a block list; add {value} to it by hand",
                           hint=f"or write it as a list: `{key}:` then one `- ` line per value")
    last, indent = head, "  "
    for i in range(head + 1, len(lines)):
        item = _ITEM.match(lines[i])
        if item:
            last, indent = i, item.group(1)
        elif lines[i].strip() and not lines[i].startswith((" ", "\t")):
            break
    if last == head:
        raise InvalidInput(f"the page's `{key}:` has no list items kbgraph can extend; add {value} by hand")
    if not lines[last].endswith("\n"):
        lines[last] += "\n"
    lines.insert(last + 1, f"{indent}- {json.dumps(value, ensure_ascii=False)}\n")
    return "".join(lines)


def _load(raw: str) -> dict:
    import yaml

    data = yaml.safe_load(raw) if raw.strip() else {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidInput("the page's frontmatter is not a YAML mapping; kbgraph will not edit it")
    return data


def _checked(old: str, new: str, key: str, value: str) -> str:
    """new, once its frontmatter reads as old's with value added under key; else InvalidInput."""
    from ..base.vault import split_frontmatter

    before, _ = split_frontmatter(old) if old.startswith("---") else ({}, 0)
    after, _ = split_frontmatter(new)
    expected = {k: v for k, v in before.items() if k != key}
    if {k: v for k, v in after.items() if k != key} != expected or \
            listed_names(after.get(key)) != listed_names(before.get(key)) + [clean_reference(value)]:
        raise InvalidInput(f"adding {value} to `{key}:` would change the page's other frontmatter; "
                           "nothing was written", hint="add it by hand")
    return new
