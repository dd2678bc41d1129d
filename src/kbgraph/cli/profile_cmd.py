"""kbg profile show: the profile kbgraph infers from the vault's frontmatter, as kbgraph.toml text."""

from __future__ import annotations

import click

from .common import json_option, vault_option


@click.group()
def profile() -> None:
    """The profile kbgraph infers from the vault's own frontmatter (which keys name people, groups or pages)."""


@profile.command("show")
@vault_option
@json_option
def show(vault: str | None, as_json: bool) -> None:
    """Print the inferred profile as the kbgraph.toml that would configure it (keys your kbgraph.toml
    configures are left out: yours win). `kbg init --infer` writes it in a vault without a kbgraph.toml."""
    import os
    from pathlib import Path

    from ..profile.vault import infer_vault_profile
    from ..base.vault import find_vault
    from ..profile.toml_text import profile_toml

    inferred = infer_vault_profile(Path(find_vault(explicit=vault or os.environ.get("KBG_VAULT") or None)))
    if as_json:
        from .output import print_json

        print_json(inferred.as_json())
        return
    click.echo(profile_toml(inferred), nl=False)
