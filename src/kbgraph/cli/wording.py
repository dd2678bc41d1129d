"""The library's words said as the CLI says them: a parameter as its flag, a next step as a command.

Library errors name a parameter in backticks (`limit`) and give hints in neutral words ("index the
vault"); this is the one table that turns them into what `kbg` users type. A phrase with a
{hole} carries what it matched (a name, a path) into the command.
"""

from __future__ import annotations

import re

FLAGS = {
    "limit": "--limit", "mode": "--mode", "date_from": "--from", "date_to": "--to",
    "reason": "--reason", "valid_until": "--valid-until", "source_doc": "--source-doc",
    "create_type": "--create", "target_name": "--target", "days": "--days", "status": "--status",
    "min_confidence": "--min-confidence", "doc_path": "--from-doc", "depth": "--depth", "max_hops": "--max-hops",
    "as_of": "--as-of", "direction": "--direction", "by": "--by", "format": "--format", "keep": "--keep",
    "since": "--since", "context": "--context",
    "budget": "--budget", "items": "--items", "topic": "--for", "names": "ENTITY", "me": "--me", "infer": "--infer",
    "kind": "--kind", "due": "--due", "source": "--source", "date": "--date", "on": "--on", "text": "TEXT",
    "fact_id": "ID", "loop_id": "ID", "capture": "the note",
}

PHRASES = {
    "index the vault": "run `kbg index`",
    "show the inferred profile and copy from it": "`kbg profile show` prints the inferred profile to copy from",
    "install the model": "run `kbg model install`",
    "export what you can": "`kbg export` what you can",
    "list the documents to see their ids": "`kbg list` shows ids",
    "give a vault-relative path": "give a vault-relative path (`kbg list`)",
    "check the page and the index status": "check the page and `kbg index status`",
    "another process is indexing this vault": "another `kbg index` is running on this vault",
    "try again when no other process is writing to it": "try again when no other kbg is writing",
    "create a vault at {path} first": "run `kbg init {path}` to create it",
    "create a vault here, or give the vault's path": "run `kbg init` here, or pass --vault PATH",
    "download the wheel elsewhere and install from that file":
        "download the wheel elsewhere and pass --from-wheel PATH",
    "; list the unlinked mentions of {name}": " (`kbg entity unlinked-mentions {name}` lists them)",
    "list the relations of {name} to see what exists": "`kbg entity relations {name}` lists what exists",
    "list the suggestions to see them": "`kbg entity suggestions` lists them",
    "list the pending questions to see them": "`kbg resolve pending` lists them",
    "list the conflicts to see them": "`kbg graph conflicts --all` lists them",
    "list the facts to see their ids": "`kbg fact list --all` shows ids",
    "list the loops to see their ids": "`kbg loop list --all` shows ids",
    "confirm the names, or write them as kbgraph knows them":
        "run it again with --confirm, or write the names as kbgraph knows them",
    "; confirm or reject some of its questions": " (answer questions with `kbg resolve confirm|reject ID`)",
    "read more of the graph: a larger max_hops, more types, or expired ones":
        "try a larger --max-hops, other --type, or --include-expired",
    "give the name of the entity that was merged away":
        "`kbg entity merge` records merges (give the name of the entity that was merged away)",
}


def _compile(phrase: str, said: str) -> tuple[re.Pattern, str]:
    """A phrase as a pattern (each {hole} matches up to the next literal, or to the end) and its template."""
    parts = re.split(r"\{(\w+)\}", phrase)
    pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    if phrase.endswith("}"):
        pattern += "$"
    return re.compile(pattern), said


_COMPILED = [_compile(phrase, said) for phrase, said in PHRASES.items()]
_PARAM = re.compile(r"`(\w+)`")


def cli_words(text: str) -> str:
    """A library message (an error, a problem, a hint) as the CLI says it."""
    for pattern, said in _COMPILED:
        text = pattern.sub(lambda m, said=said: said.format(**_for_shell(m.groupdict())), text, count=1)
    return _PARAM.sub(lambda m: FLAGS.get(m.group(1), m.group(0)), text)


def _for_shell(holes: dict[str, str]) -> dict[str, str]:
    """A path put into a command quoted as the shell needs it ('/a b'), so the command can be pasted;
    names come quoted from the library already."""
    import shlex

    return {k: shlex.quote(v) if k == "path" else v for k, v in holes.items()}
