"""An inferred profile as the kbgraph.toml text that would configure it (`kbg profile show`, `kbg init
--infer`): tomllib reads the text back to the same dict. Only what a profile holds is written: tables,
arrays of tables, strings, booleans, numbers and lists of strings."""

from __future__ import annotations

import json
import re

from .infer import Inferred, KeyRole

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def profile_toml(inferred: Inferred) -> str:
    """The TOML of inferred.raw, each mapped key's table headed by what inference saw in its values."""
    notes = {r.key: r for r in inferred.roles}
    lines = [f"# kbgraph profile inferred from the frontmatter of {inferred.notes} notes.",
             "# Copy what you want into kbgraph.toml (a key configured there always wins over inference),",
             "# or write it with `kbg init --infer` in a vault without one."]
    if not inferred.raw:
        lines.append("# Nothing to infer: kbgraph.toml and the built-in defaults already read every key it would.")
    _table(lines, [], inferred.raw, notes)
    return "\n".join(lines).rstrip() + "\n"


def _key(name: str) -> str:
    return name if _BARE.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"not a profile value: {value!r}")


def _table(lines: list[str], path: list[str], table: dict, notes: dict[str, KeyRole]) -> None:
    plain = {k: v for k, v in table.items() if not isinstance(v, dict) and not _tables(v)}
    if path and (plain or not table):
        lines.append("")
        if len(path) == 3 and path[:2] == ["relations", "frontmatter"] and path[2] in notes:
            lines.append(f"# {_why(notes[path[2]])}")
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
    for key, value in plain.items():
        lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in table.items():
        if _tables(value):
            for item in value:
                lines.append("")
                lines.append("[[" + ".".join(_key(p) for p in [*path, key]) + "]]")
                for k, v in item.items():
                    lines.append(f"{_key(k)} = {_value(v)}")
    for key, value in table.items():
        if isinstance(value, dict):
            _table(lines, [*path, key], value, notes)


def _tables(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _why(role: KeyRole) -> str:
    shapes = ", ".join(f"{shape} {n}" for shape, n in role.shapes.items())
    named = "; inferred: a relation named after the key" if role.named_after_key else ""
    return f"{role.key}: {role.role} on {role.notes} notes ({shapes}){named}"
