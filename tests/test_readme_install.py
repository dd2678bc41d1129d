"""`make demo` leaves `kbg` in .venv/bin, off PATH, while every line of the README's tour starts with `kbg`:
the README and `make demo`'s last words say how to put it on PATH, and how to install it for daily use."""

from __future__ import annotations

import re

from .conftest import REPO


def test_the_readme_says_how_to_get_kbg_on_path_before_the_tour():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    before_tour = text[:text.index("## A tour of the CLI")]
    assert "source .venv/bin/activate" in before_tour
    # Both tried as written on this checkout (uv 0.13, pipx 1.18): each installs a working `kbg`.
    assert "uv tool install ." in before_tour and "pipx install ." in before_tour


def test_make_demo_ends_by_saying_how_to_get_kbg_on_path():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    demo = re.search(r"^demo:.*?(?=^\S|\Z)", makefile, re.MULTILINE | re.DOTALL).group(0)
    assert "source $(VENV)/bin/activate" in demo.strip().splitlines()[-2]
