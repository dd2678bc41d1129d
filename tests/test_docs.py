"""The docs keep up with the code: the CLI reference is generated and current, and every JSON key is documented."""

from __future__ import annotations

import csv
import datetime
import importlib.util
import io
import json
import os
import re
import shutil

import pytest

from .conftest import REPO, SAMPLE_VAULT, run_kbg

DOCS = REPO / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_cli_reference", REPO / "tools" / "gen_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- docs/cli.md -------------------------------------------------------------------


def test_cli_reference_is_up_to_date():
    expected = _generator().render()
    current = (DOCS / "cli.md").read_text(encoding="utf-8") if (DOCS / "cli.md").exists() else ""
    assert current == expected, "docs/cli.md is out of date: run `python tools/gen_cli_reference.py`"


def test_every_command_has_a_heading_in_cli_reference():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^## (kbg\b.*?)\s*$", text, re.MULTILINE))
    paths = _generator().command_paths()
    assert {"kbg index", "kbg index status", "kbg person find", "kbg team timeline"} <= set(paths)
    missing = [p for p in paths if p not in headings]
    assert not missing, f"undocumented commands {missing}: run `python tools/gen_cli_reference.py`"


# --- docs/json.md ------------------------------------------------------------------

_HEADING = re.compile(r"^(#{2,3}) (.+?)\s*$", re.MULTILINE)
_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|", re.MULTILINE)
_LINK = re.compile(r"\]\(#([\w-]+)\)")
_EXTENDS = re.compile(r"All keys of an? \[[^\]]*\]\(#([\w-]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _json_doc_sections() -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """anchor -> {documented key: its type cell}; and heading -> anchor for every ## / ### section."""
    text = (DOCS / "json.md").read_text(encoding="utf-8")
    matches = list(_HEADING.finditer(text))
    bodies, anchors = {}, {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        anchor = _anchor(match.group(2))
        anchors[match.group(2)] = anchor
        bodies[anchor] = text[match.end():end]
    schemas: dict[str, dict[str, str]] = {}

    def schema(anchor: str, seen=()) -> dict[str, str]:
        if anchor in schemas:
            return schemas[anchor]
        assert anchor in bodies, f"docs/json.md links to #{anchor}, which is not a heading"
        assert anchor not in seen, f"docs/json.md: #{anchor} extends itself"
        keys: dict[str, str] = {}
        for base in _EXTENDS.findall(bodies[anchor]):
            keys.update(schema(base, (*seen, anchor)))
        keys.update({key: kind.strip() for key, kind in _ROW.findall(bodies[anchor])})
        schemas[anchor] = keys
        return keys

    return {a: schema(a) for a in bodies}, anchors


def _section_for(command: str, anchors: dict[str, str]) -> str:
    """The ## section whose heading names the command, e.g. "kbg entity find, kbg person find, ..."."""
    for heading, anchor in anchors.items():
        if command in [part.strip() for part in heading.split(",")]:
            return anchor
    raise AssertionError(f"docs/json.md has no section for `{command} --json` (a heading naming {command!r})")


def _check(value, anchor: str, schemas, where: str, missing: list[str], used: set[tuple[str, str]]) -> None:
    """Record every key of value (a JSON object described by section anchor) that the section does not list."""
    documented = schemas[anchor]
    for key, child in value.items():
        path = f"{where}.{key}" if where else key
        if key not in documented:
            missing.append(f"{path} (not in #{anchor})")
            continue
        used.add((anchor, key))
        kind = documented[key]
        items = child if isinstance(child, list) else [child]
        objects = [item for item in items if isinstance(item, dict)]
        if not objects or "map" in kind:
            continue  # scalars, lists of scalars, and maps whose keys are data (frontmatter, counts)
        links = _LINK.findall(kind)
        if not links:
            missing.append(f"{path} (an object, but its type in #{anchor} links to no shape)")
            continue
        suffix = "[]" if isinstance(child, list) else ""
        for obj in objects:
            _check(obj, links[0], schemas, path + suffix, missing, used)


# 2026-01-15: the copy's files look old, so `kbg entity stale` has entities and relations to report.
_OLD_MTIME = 1768478400


@pytest.fixture(scope="module")
def json_outputs(tmp_path_factory):
    """(command, parsed JSON) for every command that prints JSON, on an indexed copy of the sample vault.

    Built once for the module (the same copy the `vault` fixture makes). A broken and an empty
    note make `kbg index` report problems, so their shape is checked too. The relation commands
    then write into this copy (never into examples/vault): a page relation with evidence, an entity
    made with --create, a relation that lives only in the index, an expired one and a merge, so that
    every documented key of relate, relations, stale, merge, export and import has a row to appear in.
    A command documented in a ### section rather than a ## one is named "#anchor".
    """
    tmp_path = tmp_path_factory.mktemp("docs")
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault, ignore=shutil.ignore_patterns(".kbgraph"))
    (vault / "notes" / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (vault / "notes" / "empty.md").write_text("", encoding="utf-8")
    # Misspelt first names: kbg index asks who they are, so the resolve commands have questions to answer.
    (vault / "notes" / "standup.md").write_text("---\nattendees: [Arjoon, Lenna]\n---\n# Standup\n",
                                                encoding="utf-8")
    for path in vault.rglob("*"):
        if path.is_file():
            os.utime(path, (_OLD_MTIME, _OLD_MTIME))
    v = ("--vault", str(vault))
    export_file = str(tmp_path / "export.jsonl")
    runs = [
        ("kbg index", ("index", *v, "--json"), 3),
        ("kbg index status", ("index", "status", *v, "--json"), 0),
        ("kbg search", ("search", "kafka", *v, "--json"), 0),
        ("kbg search", ("search", "key rotation", *v, "--format", "json"), 0),
        ("kbg search", ("search", "rollout Ben", "--expand-relations", "--explain", "--why-not", "people/sam-li.md",
                        *v, "--json"), 0),
        ("kbg search", ("search", "notes Sam", "--why-not", "nope.md", *v, "--json"), 0),
        ("kbg search", ("search", "rollout", "--widen", *v, "--json"), 0),
        ("kbg search", ("search", "token rotation", "-n", "1", "--why-not", "projects/project-atlas.md", *v,
                        "--json"), 0),
        ("kbg recall", ("recall", "what is my manager working on?", *v, "--json"), 0),
        ("kbg recall", ("recall", "how are my reports doing", *v, "--json"), 0),
        ("kbg list", ("list", *v, "--json"), 0),
        ("kbg view", ("view", "people/sam-li.md", *v, "--json"), 0),
        ("kbg view", ("view", "people/sam-li.md:14", *v, "--json"), 0),
        ("kbg doc relations", ("doc", "relations", "notes/atlas-retro-copy.md", *v, "--json"), 0),
        ("kbg doc relations", ("doc", "relations", "people/sam-li.md", "--type", "references", *v, "--json"), 0),
        ("kbg entity list", ("entity", "list", *v, "--json"), 0),
        ("kbg entity find", ("entity", "find", "k8s", *v, "--json"), 0),
        ("kbg person find", ("person", "find", "Sam Li", *v, "--json"), 0),
        ("kbg person timeline", ("person", "timeline", "Sam Li", *v, "--json"), 0),
        ("kbg entity timeline", ("entity", "timeline", "Kafka", *v, "--json"), 0),
        ("kbg init", ("init", str(tmp_path / "new-vault"), "--json"), 0),
        ("kbg profile show", ("profile", "show", *v, "--json"), 0),
        ("Errors", ("person", "find", "Sam", *v, "--json"), 1),
        ("Errors", ("view", "999", *v, "--json"), 1),
        # Before any relate rewrites a page: every entity is quiet (its files are old).
        ("kbg entity stale", ("entity", "stale", "--days", "0", "--type", "team", *v, "--json"), 0),
        ("kbg graph neighbours", ("graph", "neighbours", "Ben Okafor", "-d", "2", *v, "--json"), 0),
        ("kbg graph path", ("graph", "path", "Sam Li", "María García", "--all", *v, "--json"), 0),
        ("kbg graph hubs", ("graph", "hubs", "--by", "pagerank", *v, "--json"), 0),
        ("kbg graph unlinked", ("graph", "unlinked", *v, "--json"), 0),
        ("kbg graph infer", ("graph", "infer", *v, "--json"), 0),
        ("kbg graph export", ("graph", "export", "-o", export_file + ".graphml", *v, "--json"), 0),
        ("kbg context", ("context", "--for", "Sam and the Auth Service key rotation", "--budget", "400", *v,
                         "--json"), 0),
        ("kbg context", ("context", "--budget", "100", *v, "--json"), 0),
        ("kbg slice", ("slice", "Arjun Mehta", "Auth Service", "--include-inferred", *v, "--json"), 0),
        ("#relations-as-of-a-date", ("entity", "relations", "Chen Wei", "--as-of",
                                     datetime.date.today().isoformat(), *v, "--json"), 0),
        # Relations and export: these write into the copy, so they come after the read-only checks.
        ("kbg entity relate", ("entity", "relate", "Dana Kowalski", "--type", "reports-to", "--target", "Ana Lima",
                               "--reason", "since the March re-org",
                               "--source-doc", "meetings/2026/03/02/auth-service-launch-review.md", *v, "--json"), 0),
        ("kbg entity relate", ("entity", "relate", "Project Atlas", "--type", "uses", "--target", "Terraform",
                               "--create", "technology", *v, "--json"), 0),
        ("kbg entity relate", ("entity", "relate", "Terraform", "--type", "replaces", "--target", "Kubernetes",
                               *v, "--json"), 0),
        ("kbg entity relate", ("entity", "relate", "Lena Fischer", "--type", "mentors", "--target", "Sam Ortiz",
                               "--valid-until", "2020-01-31", *v, "--json"), 0),
        ("kbg entity stale", ("entity", "stale", "--include-relations", *v, "--json"), 0),  # lists the expired one
        ("kbg entity relate", ("entity", "relate", "Project Beacon", "--type", "evaluates", "--target", "TF",
                               "--create", "technology", *v, "--json"), 0),
        ("kbg entity merge", ("entity", "merge", "TF", "Terraform", *v, "--json"), 0),
        ("kbg entity unlinked-mentions", ("entity", "unlinked-mentions", "Ana Lima", *v, "--json"), 0),
        ("kbg entity unlink", ("entity", "unlink", "Chen Wei", "notes/hiring-thoughts.md",
                                                      *v, "--json"), 0),
        ("kbg entity link", ("entity", "link", "Ana Lima", "notes/hiring-thoughts.md",
                                                      *v, "--json"), 0),
        ("Errors", ("entity", "relate", "Sam Li", "--type", "reports-to", "--target", "S. Li", *v, "--json"), 1),
        ("Errors", ("entity", "relate", "Sam", "--type", "reports-to", "--target", "Ana Lima", *v, "--json"), 1),
        ("kbg entity relate", ("entity", "relate", "Sam Li", "--type", "reports-to", "--target", "Ben Okafor",
                               *v, "--json"), 0),  # Sam reports to Chen Wei: an open, factual conflict
        ("kbg graph conflicts", ("graph", "conflicts", *v, "--json"), 0),
        ("kbg graph resolve", ("graph", "resolve", "1", "--keep", "old", *v, "--json"), 0),
        ("kbg entity relations", ("entity", "relations", "Sam Li", *v, "--json"), 0),
        ("kbg entity relations", ("entity", "relations", "Sam Ortiz", "--include-expired", *v, "--json"), 0),
        ("#relations-with-fields", ("entity", "relations", "Chen Wei", "--fields", "direction,other,type",
                                    *v, "--json"), 0),
        ("#relations-of-a-type", ("entity", "relations", "--type", "manages", *v, "--json"), 0),
        ("kbg fact add", ("fact", "add", "Arjun", "fountain pens", "--kind", "interest", *v, "--json"), 0),
        ("kbg fact supersede", ("fact", "supersede", "1", "calligraphy", *v, "--json"), 0),
        ("kbg fact list", ("fact", "list", "Arjun", "--all", *v, "--json"), 0),
        ("kbg loop add", ("loop", "add", "Arjun", "ask about the surgery @2026-08-15", *v, "--json"), 0),
        ("kbg loop add", ("loop", "add", "Ben Okafor", "send the notes", *v, "--json"), 0),
        ("kbg loop resolve", ("loop", "resolve", "2", *v, "--json"), 0),
        ("kbg loop list", ("loop", "list", "--all", *v, "--json"), 0),
        ("kbg note", ("note", "person: Arjun; alias: Mehta-san; int: pens; loop: call @2026-01-02", *v, "--json"), 0),
        ("kbg note", ("note", "person: Dan Kowal; int: tea", *v, "--json"), 1),
        ("kbg note", ("note", "had coffee with Arjun", *v, "--json"), 0),
        ("kbg brief", ("brief", "Arjun Mehta", *v, "--json"), 0),
        ("kbg brief", ("brief", "--today", *v, "--json"), 0),
        ("kbg export", ("export", *v, "--json"), 0),
        ("#export-summary", ("export", "--format", "jsonl", "-o", export_file, *v, "--json"), 0),
        ("kbg import", ("import", export_file, *v, "--json"), 0),
        ("kbg backup", ("backup", export_file + ".db", *v, "--json"), 0),
        ("kbg restore", ("restore", export_file + ".db", *v, "--json"), 0),
        ("kbg entity unrelate", ("entity", "unrelate", "Lena Fischer", "--type", "mentors", "--target", "Sam Ortiz",
                                 *v, "--json"), 0),
        ("kbg entity unrelate", ("entity", "unrelate", "Terraform", "--type", "replaces", "--target", "Kubernetes",
                                 *v, "--json"), 0),
        ("kbg entity relink", ("entity", "relink", "Chen Wei", "notes/hiring-thoughts.md",
                                                      *v, "--json"), 0),
        ("kbg entity unmerge", ("entity", "unmerge", "TF", *v, "--json"), 0),
        ("kbg export", ("export", *v, "--json"), 0),  # now with the decision the unmerge logged
        ("kbg resolve log", ("resolve", "log", *v, "--json"), 0),
    ]
    out = []
    for command, args, code in runs:
        result = run_kbg(*args)
        assert result.returncode == code, (args, result.returncode, result.stderr)
        out.append((command, json.loads(result.stdout)))
    out += _background_embedding(v)
    pending = json.loads(run_kbg("resolve", "pending", *v, "--json").stdout)
    out.append(("kbg resolve pending", pending))
    question = {q["candidate_name"]: q["id"] for q in pending["questions"]}
    for verb, name in (("reject", "Lena Fischer"), ("confirm", "Arjun Mehta")):
        result = run_kbg("resolve", verb, str(question[name]), *v, "--json")
        assert result.returncode == 0, result.stderr
        out.append((f"kbg resolve {verb}", json.loads(result.stdout)))
    out.append(("kbg resolve calibrate", json.loads(run_kbg("resolve", "calibrate", "--dry-run", *v, "--json").stdout)))
    out.append(("kbg resolve duplicates", json.loads(run_kbg("resolve", "duplicates", *v, "--json").stdout)))
    for line in run_kbg("search", "kafka", *v, "--format", "jsonl").stdout.splitlines():
        out.append(("#search-hit", json.loads(line)))
    for line in run_kbg("entity", "relations", "Sam Li", *v, "--format", "jsonl").stdout.splitlines():
        out.append(("#flattened-relation", json.loads(line)))
    header = next(csv.reader(io.StringIO(run_kbg("entity", "relations", "Sam Li", *v, "--format", "csv").stdout)))
    out.append(("#flattened-relation", dict.fromkeys(header)))
    for line in run_kbg("entity", "relations", "--type", "reports-to", *v, "--format", "jsonl").stdout.splitlines():
        out.append(("#relation-row", json.loads(line)))
    records = {"header": "kbg export", "entity": "#exported-entity", "asserted_entity": "#asserted-entity",
               "merge": "#merge", "relation": "#exported-relation", "unlink": "#unlink",
               "reference_link": "#reference-link", "decision": "#resolution-decision",
               "relation_version": "#relation-version", "fact": "#fact", "loop": "#loop"}
    with open(export_file, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            kind = record.pop("record")
            assert kind in records, f"kbg export --format jsonl: record {kind!r} is not in docs/json.md"
            out += [("#export-record", {"record": kind}), (records[kind], record)]
    return out


def _background_embedding(v: tuple[str, str]) -> list[tuple[str, dict]]:
    """`kbg index --embed background` (the started process in `background`), `kbg embed --background`,
    and `kbg embed --status` once it has finished (the fake model: well under a second)."""
    import time

    out = [("kbg index", json.loads(run_kbg("index", "--embed", "background", *v, "--json").stdout))]
    out.append(("#embed-start", json.loads(run_kbg("embed", "--background", *v, "--json").stdout)))
    deadline = time.monotonic() + 30
    while (status := json.loads(run_kbg("embed", "--status", *v, "--json").stdout))["running"]:
        assert time.monotonic() < deadline, status
        time.sleep(0.05)
    return out + [("#embed-status", status)]


def test_every_json_key_is_documented(json_outputs):
    schemas, anchors = _json_doc_sections()
    missing: list[str] = []
    for command, data in json_outputs:
        anchor = command[1:] if command.startswith("#") else _section_for(command, anchors)
        problems: list[str] = []
        _check(data, anchor, schemas, "", problems, set())
        missing += [f"{command}: {p}" for p in problems]
    assert not missing, "JSON keys missing from docs/json.md:\n  " + "\n  ".join(sorted(set(missing)))


def test_no_documented_json_key_is_stale(json_outputs):
    """Every key the command sections document (and the shapes they use) is printed by some command."""
    schemas, anchors = _json_doc_sections()
    used: set[tuple[str, str]] = set()
    checked: set[str] = set()
    for command, data in json_outputs:
        anchor = command[1:] if command.startswith("#") else _section_for(command, anchors)
        checked.add(anchor)
        _check(data, anchor, schemas, "", [], used)
    reachable, todo = set(), list(checked)
    while todo:
        anchor = todo.pop()
        if anchor in reachable:
            continue
        reachable.add(anchor)
        todo += [link for kind in schemas[anchor].values() for link in _LINK.findall(kind)]
    documented = {(a, k) for a in reachable for k in schemas[a]}
    # A shape's inherited keys are "used" when seen through any shape that includes them.
    used_keys = {k for _, k in used}
    stale = sorted(f"#{a}: {k}" for a, k in documented - used if k not in used_keys)
    assert not stale, "docs/json.md documents keys no command prints:\n  " + "\n  ".join(stale)
