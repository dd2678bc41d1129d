"""A tool call's arguments, checked once for every tool before its body runs: an argument the tool does
not take is refused with the names it does take (the SDK would drop it silently, so `relations_list
{"type": "manages"}` answered as if no type were asked), and a value the schema refuses becomes one line
naming the argument and what it expects (the SDK's own answer is pydantic's multi-line dump with links).
Both come back as kbgraph's InvalidInput tool error, with `param` naming the argument."""

from __future__ import annotations

import difflib
import json
from typing import Any

from pydantic import ValidationError

from ..errors import InvalidInput

SHOWN = 40  # characters of a rejected value echoed back: enough to recognise it, never a flood


def unknown_arguments(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> InvalidInput | None:
    """InvalidInput naming each argument `tool` does not take and the ones it does; None when all are known."""
    known = list(schema.get("properties", {}))
    unknown = [name for name in arguments if name not in known]
    if not unknown:
        return None
    guesses = [f"`{name}` (did you mean `{close[0]}`?)" if (close := difflib.get_close_matches(name, known, 1, 0.5))
               else f"`{name}`" for name in unknown]
    takes = ", ".join(known) if known else "none"
    return InvalidInput(f"{tool} has no argument {' or '.join(guesses)}; its arguments: {takes}", param=unknown[0])


def mistyped_arguments(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> InvalidInput | None:
    """InvalidInput for each top-level argument whose JSON type is not one the schema lists; None when all fit.

    The SDK validates in pydantic's lax mode, which converts rather than refuses: `limit: true` ran as
    limit 1, `limit: "3"` as 3, `include_expired: "yes"` as true. An agent that sends the wrong type has
    misread the tool, and should hear so rather than get an answer to a question it did not ask."""
    props = schema.get("properties", {})
    parts = [f"`{name}` must be {_kind(props[name])}, got {_shown(value)}" for name, value in arguments.items()
             if name in props and not _fits(value, props[name])]
    if not parts:
        return None
    return InvalidInput(f"{tool}: " + "; ".join(parts), param=next(n for n, v in arguments.items()
                                                                     if n in props and not _fits(v, props[n])))


def _fits(value: Any, prop: dict[str, Any]) -> bool:
    """Whether a value's JSON type is one `prop` allows (its values are pydantic's to check, not ours)."""
    if "anyOf" in prop:
        return any(_fits(value, option) for option in prop["anyOf"])
    kind = prop.get("type")
    if kind is None:
        return True
    kinds = kind if isinstance(kind, list) else [kind]
    return any(_JSON_TYPES.get(k, lambda v: True)(value) for k in kinds)


_JSON_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def invalid_arguments(tool: str, schema: dict[str, Any], exc: ValidationError) -> InvalidInput:
    """One line for every argument the schema refused (the first error of each), naming what it expects."""
    first: dict[str, dict] = {}
    for err in exc.errors(include_url=False):
        loc = err.get("loc") or ("arguments",)
        first.setdefault(str(loc[0]), err)
    parts = [_one(name, err, schema.get("properties", {}).get(name, {})) for name, err in first.items()]
    return InvalidInput(f"{tool}: " + "; ".join(parts), param=next(iter(first), None))


def _one(name: str, err: dict, prop: dict[str, Any]) -> str:
    where = f"`{name}" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"][1:]) + "`"
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "missing":
        about = f" ({prop['description'].rstrip('.')})" if prop.get("description") else ""
        return f"{where} is required: {_kind(prop)}{about}"
    expects = _EXPECTS.get(kind)
    text = expects(ctx) if expects else _pydantic_words(err["msg"])
    return f"{where} {text}, got {_shown(value)}"


def _kind(prop: dict[str, Any]) -> str:
    """What a property of the input schema takes, in words: "a string", "a list of strings", "'a' or 'b'"."""
    if "enum" in prop:
        return " or ".join(f"'{v}'" if isinstance(v, str) else json.dumps(v) for v in prop["enum"])  # as pydantic says
    if "anyOf" in prop:
        return " or ".join(_kind(p) for p in prop["anyOf"] if p.get("type") != "null")
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items", {})
        return "a list" + (f" of {_kind(items).removeprefix('a ').removeprefix('an ')}s" if items.get("type") else "")
    return _TYPES.get(kind, "a value")


_TYPES = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false",
          "object": "an object"}


def _pydantic_words(msg: str) -> str:
    """pydantic's one-line message, said of the argument: "Input should be X" -> "should be X"."""
    for head in ("Input ", "Value "):
        if msg.startswith(head):
            return msg[len(head):]
    return "is not valid: " + msg[:1].lower() + msg[1:]


def _length(ctx: dict, key: str, unit: str) -> str:
    n = ctx.get(key)
    return f"{n} {unit}{'' if n == 1 else 's'}"


_EXPECTS = {
    "string_type": lambda c: "must be a string",
    "int_type": lambda c: "must be a whole number",
    "int_parsing": lambda c: "must be a whole number",
    "int_from_float": lambda c: "must be a whole number",
    "float_type": lambda c: "must be a number",
    "float_parsing": lambda c: "must be a number",
    "bool_type": lambda c: "must be true or false",
    "bool_parsing": lambda c: "must be true or false",
    "list_type": lambda c: "must be a list",
    "dict_type": lambda c: "must be an object",
    "literal_error": lambda c: f"must be {c.get('expected')}",
    "enum": lambda c: f"must be {c.get('expected')}",
    "greater_than_equal": lambda c: f"must be at least {c.get('ge')}",
    "greater_than": lambda c: f"must be more than {c.get('gt')}",
    "less_than_equal": lambda c: f"must be at most {c.get('le')}",
    "less_than": lambda c: f"must be less than {c.get('lt')}",
    "string_too_short": lambda c: "must not be empty" if c.get("min_length") == 1
                                  else f"must have at least {_length(c, 'min_length', 'character')}",
    "string_too_long": lambda c: f"must have at most {_length(c, 'max_length', 'character')}",
    "too_short": lambda c: f"must have at least {_length(c, 'min_length', 'item')}",
    "too_long": lambda c: f"must have at most {_length(c, 'max_length', 'item')}",
}


def _shown(value: Any) -> str:
    """The rejected value, short: a long string or list by its size, anything else as JSON."""
    if isinstance(value, str) and len(value) > SHOWN:
        return f"a string of {len(value)} characters"
    if isinstance(value, (list, dict)) and len(value) > 5:
        return f"{'a list' if isinstance(value, list) else 'an object'} of {len(value)} items"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
