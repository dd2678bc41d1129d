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
