"""The entity command groups, put together when `kbg entity`, `person`, `project` or `team` is run
(the top-level group loads command modules lazily, see app.COMMANDS)."""

from __future__ import annotations

import click

from . import entity_cmd, mentions_cmd, relations_cmd, suggestions_cmd


def entity_group() -> click.Group:
    """`kbg entity` with the relation, suggestion and mention commands added (once per process)."""
    group = entity_cmd.entity
    if "relate" not in group.commands:
        relations_cmd.register(group)
        suggestions_cmd.register(group)
        mentions_cmd.register(group)
    return group


def person_group() -> click.Group:
    return _typed("person")


def project_group() -> click.Group:
    return _typed("project")


def team_group() -> click.Group:
    return _typed("team")


def _typed(entity_type: str) -> click.Group:
    return next(g for g in entity_cmd.typed_groups() if g.name == entity_type)
