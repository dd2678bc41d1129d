"""The README's library example runs as written (on a copy of the sample vault)."""

from __future__ import annotations

import re

from .conftest import REPO


def test_the_library_example_runs(vault, monkeypatch, capsys):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if "index_vault" in block]
    monkeypatch.chdir(vault.parent)
    (vault.parent / "examples").mkdir()
    vault.rename(vault.parent / "examples" / "vault")
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "Ben Okafor ← mentioned in" in printed and "people/ana-lima.md" in printed


def test_the_agent_context_lines_run_on_the_sample_vault(shared_sample):
    import shlex

    from .conftest import run_kbg

    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [line.split("  #")[0] for line in re.findall(r"^kbg (?:context|slice) .*$", text, re.MULTILINE)]
    assert len(lines) >= 3
    for line in lines:
        result = run_kbg(*shlex.split(line)[1:], "--vault", str(shared_sample))
        assert result.returncode == 0 and result.stdout.strip(), (line, result.stderr)
        budget = re.search(r"--budget (\d+)", line)
        assert len(result.stdout.splitlines()) <= (int(budget.group(1)) if budget else 2000)


def test_the_memory_lines_run_on_the_sample_vault(indexed_vault):
    import shlex

    from .conftest import run_kbg

    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [line.split("  #")[0] for line in re.findall(r"^kbg (?:note|fact|loop|brief) .*$", text, re.MULTILINE)]
    assert len(lines) >= 6
    for line in lines:
        result = run_kbg(*shlex.split(line)[1:], "--vault", str(indexed_vault))
        assert result.returncode == 0 and result.stdout.strip(), (line, result.stderr)


def test_the_passage_and_recall_lines_run_on_the_sample_vault(shared_sample):
    import json
    import shlex

    from .conftest import run_kbg

    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [line.split("  #")[0] for line in re.findall(r"^kbg (?:recall .*|search .*--passages.*)$", text, re.MULTILINE)]
    assert len(lines) >= 3
    outcomes = []
    for line in lines:
        result = run_kbg(*shlex.split(line)[1:], "--vault", str(shared_sample), "--json")
        assert result.returncode == 0, (line, result.stderr)
        out = json.loads(result.stdout)
        outcomes.append(out.get("status") or out.get("unit"))
    assert outcomes == ["passage", "answered", "answered", "abstained"]
