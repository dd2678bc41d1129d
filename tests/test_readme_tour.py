"""The README's CLI tour runs as written: every `kbg` command of its sh blocks, in order, on one fresh
copy of the sample vault at ~/notes (a temporary HOME), through the real entry point.

Each line is expanded by bash itself (quotes, `~`, `$(date +%F)`, `a ; b`), with `kbg` and `cd` defined
as functions that only print their arguments; the commands then run in-process (conftest.run_kbg), in
the folder the tour's `cd` chose. A command may exit non-zero only where its comment says so, as
`# exits N: why`, and then it must exit N. Lines that cannot run here are left out by a rule in SKIP,
each of which must still match a line; a line that is neither `kbg`/`cd` nor matched by a rule fails.
Vectors come from the fake embedder (conftest sets KBG_EMBEDDER); `kbg model status` checks the real
model's files, which `make` installs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from .conftest import REPO, SAMPLE_VAULT, run_kbg

EXPECTED_EXIT = re.compile(r"#\s*exits (\d+):")

# (a pattern searched in a line's command, comment left out; why it does not run here). Every rule
# must match at least one README line.
SKIP = (
    (r"^make ", "set-up of this checkout (the Makefile), not a kbg command"),
    (r"^pip install ", "installs packages"),
    (r"^kbg (serve|mcp)\b", "a server that runs until stopped: tests/test_api_serve.py, tests/test_mcp.py"),
    (r"postgresql://", "needs a PostgreSQL server: tests/test_postgres_e2e.py"),
)

# What the tour's comments promise about the sample vault, by the command they are made of: the
# numbers it answers with must be the questions and suggestions its comments name.
CLAIMS = {
    "person find Sam": ("Sam Li", "Sam Ortiz"),
    "entity extract notes/stack.md": ("Auth Service --uses--> Kubernetes",),
    "entity accept 4": ("María García --contributes-to--> Project Beacon",),
    "entity suggestions --status rejected": ("Ana Lima", "contributes-to", "Project Atlas"),
    "resolve pending": ("#2  'Dan' == Dana Kowalski (P=0.90)?", "#3  'Dana K' == Dana Kowalski"),
    "resolve confirm 3": ("'Dana K' is Dana Kowalski",),
    "resolve reject 2": ("'Dan' is not Dana Kowalski",),
    "resolve calibrate": ("Calibration on 2 answers",),
    "resolve log --outcome auto-linked": ("Arjoon Mehta", "Lena Fischr"),
    "entity unmerge Arjoon Mehta": ("separate from Arjun Mehta",),
    "entity link Ana Lima notes/hiring-thoughts.md": ("[[Ana Lima|Ana]]",),
}


@dataclass(frozen=True)
class Line:
    text: str
    section: str

    @property
    def skipped(self) -> bool:
        command = self.text.split("  #")[0]
        return any(re.search(pattern, command) for pattern, _ in SKIP)


def readme_lines() -> list[Line]:
    """Every command line of the README's sh blocks, in order (comment-only lines left out)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = []
    for section in re.split(r"^(?=## )", text, flags=re.MULTILINE):
        title = section.splitlines()[0] if section.startswith("## ") else "(top)"
        for block in re.findall(r"^```sh\n(.*?)^```", section, re.DOTALL | re.MULTILINE):
            lines += [Line(line, title) for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return lines


def expand(lines: list[str], home: str) -> list[list[list[str]]]:
    """Per line, the commands bash would run (argv lists), expanded by bash with HOME=home."""
    stub = 'kbg() { printf "%s\\0" kbg "$@"; printf "\\36\\0"; }; cd() { printf "%s\\0" cd "$@"; printf "\\36\\0"; }\n'
    script = stub + "".join(f'printf "\\35\\0"\n{line}\n' for line in lines)
    done = subprocess.run(["bash", "-c", script], capture_output=True, env={**os.environ, "HOME": home},
                          timeout=30, check=True)
    words = done.stdout.decode("utf-8").split("\0")[:-1]
    out: list[list[list[str]]] = []
    for word in words:
        if word == "\x1d":
            out.append([[]])
        elif word == "\x1e":
            out[-1].append([])
        else:
            out[-1][-1].append(word)
    return [[argv for argv in commands if argv] for commands in out]


def test_the_readme_has_a_tour_and_every_skip_rule_is_used():
    lines = readme_lines()
    tour = [line for line in lines if line.section == "## A tour of the CLI"]
    assert len(tour) >= 60 and tour[0].text.startswith("kbg init ~/notes") and tour[1].text == "cd ~/notes"
    for pattern, why in SKIP:
        assert any(re.search(pattern, line.text.split("  #")[0]) for line in lines), \
            f"no README line needs the rule {pattern!r} ({why})"
    assert not any(line.skipped for line in tour), "the tour itself runs whole"


def test_every_command_of_the_tour_runs_as_written(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copytree(SAMPLE_VAULT, home / "notes", ignore=shutil.ignore_patterns(".kbgraph"))
    from kbgraph.embed.model_files import model_status

    model_here = model_status(full=False).present
    lines = readme_lines()
    runnable = [line for line in lines if line.text.split()[0] in ("kbg", "cd") and not line.skipped]
    unknown = [line.text for line in lines if line not in runnable and not line.skipped]
    assert not unknown, f"README lines that are neither run nor skipped by a rule in SKIP: {unknown}"

    cwd, ran, said = home, 0, {}
    for line, commands in zip(runnable, expand([line.text for line in runnable], str(home)), strict=True):
        expected = EXPECTED_EXIT.search(line.text)
        for argv in commands:
            if argv[0] == "cd":
                cwd = home.joinpath(argv[1]) if len(argv) > 1 else home
                continue
            if argv[1:3] == ["model", "status"] and not model_here:
                continue  # the model's files are not installed here: `make` installs them (tests skip without)
            result = run_kbg(*argv[1:], cwd=cwd)
            ran += 1
            code = int(expected.group(1)) if expected else 0
            assert result.returncode == code, (f"{line.section}: {line.text}\nexit {result.returncode}, "
                                               f"expected {code}", result.stdout[-2000:], result.stderr[-2000:])
            if code:
                assert result.stderr.strip(), f"{line.text}: a failure says why"
            said[" ".join(argv[1:])] = result.stdout + result.stderr
    assert ran >= 60
    for command, texts in CLAIMS.items():
        assert command in said, f"CLAIMS names {command!r}, which the tour no longer runs"
        for text in texts:
            assert text in said[command], (command, text, said[command][-2000:])
