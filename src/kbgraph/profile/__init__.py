"""Profiles: the kbgraph.toml a vault's own frontmatter implies (infer.py) and its TOML text (toml_text.py)."""
