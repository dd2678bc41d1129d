"""A deterministic synthetic vault: dated meeting notes plus people, project and team pages.

Shared by index_speed.py and search_latency.py so both benchmarks measure the
same kind of data. Everything is drawn from one random.Random(seed), so the
same arguments always give byte-identical files (the numbers are comparable
between runs and between machines). The prose is nonsense assembled from word
lists, but it has the shape that matters to kbgraph: YAML frontmatter with
references (attendees, project, tags), four `##` sections of 60-120 words each,
people mentioned by full name, first name and alias, projects by name and alias,
and the occasional [[wikilink]].
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path

FIRST_NAMES = [
    "Ana", "Arjun", "Beatriz", "Chen", "Dana", "Elif", "Farah", "Gustavo", "Hana", "Ivan", "Jonas", "Kemal",
    "Lena", "Mateo", "Nadia", "Oren", "Priya", "Quentin", "Rosa", "Sam", "Tomas", "Uma", "Viktor", "Wen",
    "Ximena", "Yusuf", "Zofia", "Amara", "Bruno", "Carmen", "Dmitri", "Esther", "Felix", "Greta", "Hugo",
    "Ingrid", "Jamal", "Keiko", "Luis", "Mira",
]
LAST_NAMES = [
    "Lima", "Mehta", "Santos", "Wei", "Kowalski", "Yilmaz", "Haddad", "Ferreira", "Sato", "Petrov", "Berg",
    "Demir", "Fischer", "Rossi", "Novak", "Levi", "Iyer", "Moreau", "Garcia", "Li", "Horvat", "Rao", "Larsen",
    "Zhang", "Ortiz", "Aydin", "Nowak", "Okafor", "Costa", "Ruiz", "Volkov", "Cohen", "Keller", "Lund",
    "Dubois", "Olsen", "Ali", "Tanaka", "Mendez", "Kaur",
]
PROJECT_WORDS = [
    "Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper", "Keystone",
    "Lumen", "Meridian", "Nimbus", "Orchid", "Polaris", "Quartz", "Redwood", "Sierra", "Tundra",
]
TEAM_NAMES = ["Platform", "Payments", "Identity", "Data", "Growth", "Mobile", "Search", "Reliability"]

# Topic vocabulary: the words the search benchmark draws its queries from.
TOPIC_WORDS = [
    "migration", "rollout", "latency", "throughput", "schema", "backfill", "token", "rotation", "cluster",
    "cache", "queue", "retry", "timeout", "deployment", "canary", "rollback", "incident", "postmortem",
    "budget", "roadmap", "milestone", "dependency", "contract", "vendor", "pricing", "checkout", "invoice",
    "onboarding", "signup", "dashboard", "metric", "alert", "runbook", "oncall", "capacity", "sharding",
    "replica", "index", "partition", "encryption", "certificate", "gateway", "mesh", "sidecar", "kubernetes",
    "postgres", "kafka", "redis", "terraform", "pipeline", "warehouse", "experiment", "funnel", "retention",
    "churn", "compliance", "audit", "permissions", "session", "webhook", "billing", "refund", "fraud",
    "localisation", "accessibility", "prototype", "benchmark", "regression", "flaky", "coverage", "release",
    "hotfix", "feature", "flag", "quota", "ratelimit", "failover", "backup", "restore", "snapshot", "storage",
]
VERBS = [
    "reviewed", "proposed", "raised", "questioned", "agreed", "blocked", "shipped", "measured", "estimated",
    "described", "challenged", "summarised", "prioritised", "deferred", "escalated", "documented", "tested",
    "compared", "outlined", "flagged",
]
FILLER = [
    "the", "a", "this", "that", "our", "their", "new", "old", "current", "next", "first", "second", "whole",
    "remaining", "open", "shared", "internal", "external", "weekly", "quarterly", "slow", "fast", "risky",
    "simple", "manual", "automated", "partial", "full", "small", "large",
]
CONNECTIVES = [
    "because", "although", "so that", "while", "after", "before", "unless", "since", "and then", "but",
]
CLOSERS = [
    "by the end of the month", "before the next release", "on staging first", "with the help of the on-call",
    "in the next sprint", "once the numbers are in", "after the freeze", "without downtime",
    "for one more quarter", "as a follow-up",
]
SECTION_TITLES = [
    ("Context", "Discussion", "Decisions", "Action items"),
    ("Updates", "Risks", "Decisions", "Next steps"),
    ("Agenda", "Notes", "Open questions", "Follow-ups"),
    ("Status", "Blockers", "Discussion", "Action items"),
]
MEETING_KINDS = ["weekly sync", "design review", "planning", "retro", "1:1", "kickoff", "incident review"]
TAGS = ["planning", "infra", "security", "data", "growth", "hiring", "incident", "design", "release", "1on1"]


@dataclass(frozen=True)
class Person:
    name: str
    aliases: tuple[str, ...]
    team: str
    slug: str


@dataclass(frozen=True)
class Project:
    name: str
    alias: str
    lead: str
    team: str
    slug: str


@dataclass
class SynthVault:
    """What was written, so benchmarks can pick files to edit and queries to run."""

    root: Path
    notes: list[Path] = field(default_factory=list)
    pages: list[Path] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)
    projects: list[Project] = field(default_factory=list)
    teams: list[str] = field(default_factory=list)
    bytes_written: int = 0

    @property
    def files(self) -> int:
        return len(self.notes) + len(self.pages)


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def make_entities(rng: random.Random, pages: int) -> tuple[list[Person], list[Project], list[str]]:
    """Split `pages` entity pages into ~60% people, ~28% projects and the rest teams."""
    n_teams = max(1, min(len(TEAM_NAMES), pages // 8))
    n_projects = max(1, min(len(PROJECT_WORDS), round(pages * 0.28)))
    n_people = max(1, pages - n_teams - n_projects)
    teams = TEAM_NAMES[:n_teams]
    full_names = [f"{f} {l}" for f in FIRST_NAMES for l in LAST_NAMES]
    rng.shuffle(full_names)
    people = []
    for name in full_names[:n_people]:
        first, last = name.split()
        initials = (first[0] + last[0]).upper()
        aliases = (initials,) if rng.random() < 0.4 else ()
        people.append(Person(name, aliases, rng.choice(teams), _slug(name)))
    projects = []
    for word in rng.sample(PROJECT_WORDS, n_projects):
        name = f"Project {word}"
        projects.append(Project(name, word, rng.choice(people).name, rng.choice(teams), _slug(name)))
    return people, projects, teams


def _sentence(rng: random.Random, people: list[Person], projects: list[Project]) -> str:
    """One sentence of plausible-looking meeting prose, sometimes naming a person or project."""
    subject_roll = rng.random()
    if subject_roll < 0.35:
        person = rng.choice(people)
        subject = rng.choice((person.name, person.name.split()[0], *person.aliases))
    elif subject_roll < 0.45:
        subject = f"[[{rng.choice(people).name}]]"
    else:
        subject = rng.choice(("We", "The team", "Everyone", "Nobody", "The group"))
    words = [subject, rng.choice(VERBS), rng.choice(FILLER), rng.choice(TOPIC_WORDS), rng.choice(TOPIC_WORDS)]
    if rng.random() < 0.3:
        project = rng.choice(projects)
        words += ["for", rng.choice((project.name, project.alias))]
    words += [rng.choice(CONNECTIVES), rng.choice(FILLER), rng.choice(TOPIC_WORDS), "was", rng.choice(FILLER)]
    if rng.random() < 0.5:
        words.append(rng.choice(CLOSERS))
    return " ".join(words) + "."


def _paragraph(rng: random.Random, people, projects, low: int = 60, high: int = 120) -> str:
    target = rng.randint(low, high)
    sentences, count = [], 0
    while count < target:
        sentence = _sentence(rng, people, projects)
        sentences.append(sentence)
        count += len(sentence.split())
    return " ".join(sentences)


def _frontmatter(fields: dict[str, object]) -> str:
    lines = ["---"]
    for key, value in fields.items():
        if isinstance(value, (list, tuple)):
            lines.append(f"{key}: [{', '.join(str(v) for v in value)}]")
        else:
            lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _meeting_note(rng: random.Random, people, projects, day: dt.date | None = None) -> tuple[str, str]:
    """(file stem, text) of one meeting note; `day` adds `date:` and `type: notes` lines, as a kbx meeting
    export has (kbx dates notes by frontmatter only, and refuses a meeting without a type)."""
    project = rng.choice(projects)
    kind = rng.choice(MEETING_KINDS)
    attendees = rng.sample(people, k=min(len(people), rng.randint(2, 5)))
    title = f"{project.alias} {kind}"
    fields: dict[str, object] = {
        "title": title,
        "attendees": [p.name for p in attendees],
        "project": project.name,
        "tags": rng.sample(TAGS, k=rng.randint(1, 3)),
    }
    if day is not None:
        fields["date"] = f"{day:%Y-%m-%d}"
        fields["type"] = "notes"
    fm = _frontmatter(fields)
    parts = [fm, f"# {title}\n"]
    for heading in rng.choice(SECTION_TITLES):
        parts.append(f"\n## {heading}\n\n{_paragraph(rng, attendees + people[:3], projects)}\n")
    return _slug(title), "".join(parts)


def _person_page(rng: random.Random, person: Person, projects) -> str:
    fm = {"type": "person", "name": person.name, "aliases": list(person.aliases), "team": person.team,
          "role": rng.choice(("Engineer", "Senior Engineer", "Staff Engineer", "Product Manager", "Designer"))}
    body = f"# {person.name}\n\n## Background\n\n{_paragraph(rng, [person], projects, 40, 80)}\n"
    return _frontmatter(fm) + body


def _project_page(rng: random.Random, project: Project, people, projects) -> str:
    fm = {"type": "project", "name": project.name, "aliases": [project.alias], "lead": project.lead,
          "team": project.team, "status": rng.choice(("active", "planned", "done"))}
    body = (f"# {project.name}\n\n## Summary\n\n{_paragraph(rng, people, projects, 60, 100)}\n"
            f"\n## Risks\n\n{_paragraph(rng, people, projects, 40, 80)}\n")
    return _frontmatter(fm) + body


def _team_page(rng: random.Random, team: str, people, projects) -> str:
    members = [p.name for p in people if p.team == team]
    fm = {"type": "team", "name": team, "members": members}
    body = f"# {team}\n\n## Mission\n\n{_paragraph(rng, people, projects, 40, 80)}\n"
    return _frontmatter(fm) + body


def _write(path: Path, text: str) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    path.write_bytes(data)
    return len(data)


def generate_vault(root: Path, notes: int = 1000, pages: int = 50, seed: int = 42,
                   layout: str = "kbgraph") -> SynthVault:
    """Write `notes` dated meeting notes and `pages` entity pages under root; returns what was written.

    Notes are spread over the days from 2024-01-01 so that folders hold a few files
    each (meetings/YYYY/MM/DD/<slug>.md), like a real dated-notes vault.

    layout="kbx" writes the same notes where kbx 0.3.x looks for them (bench/vs_kbx.py): everything
    under memory/, meetings as memory/meetings/YYYY/MM/DD/<slug>.notes.md (kbx indexes a meeting
    only with a .notes.md-style suffix and a frontmatter title) with `date:` and `type:` lines. The
    random draws are the same, so the text is the default layout's plus those lines.
    """
    if layout not in ("kbgraph", "kbx"):
        raise ValueError(f"layout must be 'kbgraph' or 'kbx', not {layout!r}")
    kbx = layout == "kbx"
    rng = random.Random(seed)
    root = Path(root)
    base = root / "memory" if kbx else root
    suffix = ".notes.md" if kbx else ".md"
    people, projects, teams = make_entities(rng, pages)
    vault = SynthVault(root=root, people=people, projects=projects, teams=teams)
    for person in people:
        path = base / "people" / f"{person.slug}.md"
        vault.bytes_written += _write(path, _person_page(rng, person, projects))
        vault.pages.append(path)
    for project in projects:
        path = base / "projects" / f"{project.slug}.md"
        vault.bytes_written += _write(path, _project_page(rng, project, people, projects))
        vault.pages.append(path)
    for team in teams:
        path = base / "teams" / f"{_slug(team)}.md"
        vault.bytes_written += _write(path, _team_page(rng, team, people, projects))
        vault.pages.append(path)
    start = dt.date(2024, 1, 1)
    used: set[Path] = set()
    for i in range(notes):
        day = start + dt.timedelta(days=(i * 3) // 4)  # ~1.3 notes per day
        stem, text = _meeting_note(rng, people, projects, day if kbx else None)
        path = base / "meetings" / f"{day:%Y/%m/%d}" / f"{stem}{suffix}"
        n = 2
        while path in used:
            path = path.with_name(f"{stem}-{n}{suffix}")
            n += 1
        used.add(path)
        vault.bytes_written += _write(path, text)
        vault.notes.append(path)
    return vault


def query_vocabulary(vault: SynthVault) -> tuple[list[str], list[str]]:
    """(topic words, entity names) that the vault's text is built from."""
    names = [p.name for p in vault.people] + [p.alias for p in vault.projects] + list(vault.teams)
    return list(TOPIC_WORDS), names


if __name__ == "__main__":  # a quick look: python bench/synth.py /tmp/v 20
    import sys

    out = generate_vault(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20)
    print(f"wrote {out.files} files ({out.bytes_written / 1024:.0f} KiB) under {out.root}")
