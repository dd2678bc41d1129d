"""kbgraph.toml: defaults, validation, and what each setting changes."""

from __future__ import annotations

import pytest

from kbgraph.config import Config, config_from_dict, load_config
from kbgraph.errors import ConfigError


def test_missing_or_empty_config_means_defaults(tmp_path, monkeypatch):
    monkeypatch.delenv("KBG_EMBEDDER", raising=False)
    assert load_config(tmp_path) == Config()
    (tmp_path / "kbgraph.toml").write_text("")
    assert load_config(tmp_path).max_file_bytes == Config().max_file_bytes


def test_invalid_toml_is_a_clear_error(tmp_path):
    (tmp_path / "kbgraph.toml").write_text("[index\nignore = 1")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)


@pytest.mark.parametrize("raw, message", [
    ({"index": {"ignroe": ["x"]}}, "unknown key [index] 'ignroe'; did you mean 'ignore'"),
    ({"indx": {}}, "unknown key 'indx'; did you mean 'index'"),
    ({"index": {"ignore": "drafts"}}, "index.ignore must be a list of strings"),
    ({"index": {"max_file_mb": 0}}, "max_file_mb must be a number above 0"),
    ({"index": {"chunk_chars": 10}}, "chunk_chars must be an integer"),
    ({"entities": {"references": {"sponsor": "alien"}}}, "is not an entity type"),
    ({"kinds": "people"}, "[kinds] must be a table"),
])
def test_bad_settings_are_refused(raw, message):
    with pytest.raises(ConfigError) as info:
        config_from_dict(raw)
    assert message in str(info.value)


def test_settings_apply():
    config = config_from_dict({
        "index": {"ignore": ["drafts/**"], "extensions": ["md", ".MDX"], "max_file_mb": 1},
        "kinds": {"Standups": "Meeting"},
        "entities": {"types": ["customer"], "references": {"sponsor": "person", "account": "customer"}},
    })
    assert config.ignore == ("drafts/**",) and config.extensions == (".md", ".mdx")
    assert config.folder_kinds["standups"] == "meeting"
    assert config.references["account"] == "customer" and "customer" in config.entity_types
    assert config.page_kinds["customer"] == "customer"
    assert config.max_file_bytes == 1024 * 1024


def test_kbg_embedder_overrides_the_embedder_with_or_without_a_config_file(tmp_path, monkeypatch):
    from kbgraph.config import load_config

    monkeypatch.setenv("KBG_EMBEDDER", "none")
    assert load_config(tmp_path).search.embedder == "none"
    (tmp_path / "kbgraph.toml").write_text('[search]\nembedder = "minilm"\n')
    assert load_config(tmp_path).search.embedder == "none"
    monkeypatch.delenv("KBG_EMBEDDER")
    assert load_config(tmp_path).search.embedder == "minilm"
