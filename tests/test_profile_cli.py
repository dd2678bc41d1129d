"""kbg profile show and kbg init --infer (issue 28): the inferred profile as the TOML that configures it."""

from __future__ import annotations

import json
import tomllib

from kbgraph.access import LOCAL
from kbgraph.config import config_from_dict, load_config, merge_inferred
from kbgraph.ingest.pipeline import index_vault
from kbgraph.profile.vault import infer_vault_profile
from kbgraph.store import open_store

from .conftest import copy_sample, run_kbg
from .test_profile_inference import _kep_vault


def _relations(root):
    store = open_store(root)
    try:
        return {(r["source"], r["type"], r["target"]) for r in store.relations_of_type(LOCAL, None)}
    finally:
        store.close()


def test_profile_show_prints_the_toml_that_configures_it(tmp_path):
    root = _kep_vault(tmp_path / "v")
    result = run_kbg("profile", "show", "--vault", str(root))
    assert result.returncode == 0, result.stderr
    assert tomllib.loads(result.stdout) == infer_vault_profile(root).raw
    assert "[relations.frontmatter.authors]" in result.stdout and "a relation named after the key" in result.stdout
    shown = json.loads(run_kbg("profile", "show", "--vault", str(root), "--json").stdout)
    assert shown["profile"] == tomllib.loads(result.stdout)
    assert {k["key"]: k["role"] for k in shown["keys"]}["owning-sig"] == "groups"
    assert not (root / "kbgraph.toml").exists()  # showing writes nothing


def test_init_infer_writes_a_toml_that_loads_to_the_same_profile(tmp_path):
    root = _kep_vault(tmp_path / "v")
    inferred = infer_vault_profile(root)
    result = run_kbg("init", str(root), "--infer")
    assert result.returncode == 0, result.stderr
    written = tomllib.loads((root / "kbgraph.toml").read_text())
    assert written == inferred.raw
    loaded, expected = load_config(root), config_from_dict(merge_inferred({}, inferred.raw))
    for field in ("page_rules", "frontmatter_relations", "entity_types", "references", "vocabulary", "fingerprint"):
        assert getattr(loaded, field) == getattr(expected, field), field
    index_vault(root)  # written, every key is the user's: inference adds nothing on top
    assert json.loads((root / ".kbgraph" / "profile.json").read_text())["profile"] == {}
    assert ("@ana", "authored", "KEP-1") in _relations(root)


def test_the_written_profile_indexes_as_the_inferred_one(tmp_path):
    inferred_root, written_root = _kep_vault(tmp_path / "a"), _kep_vault(tmp_path / "b")
    assert run_kbg("init", str(written_root), "--infer").returncode == 0
    index_vault(inferred_root)
    index_vault(written_root)
    assert _relations(inferred_root) == _relations(written_root) != set()


def test_init_infer_never_overwrites_a_config(tmp_path):
    root = _kep_vault(tmp_path / "v")
    (root / "kbgraph.toml").write_text("[me]\nname = \"Ana\"\n")
    result = run_kbg("init", str(root), "--infer")
    assert result.returncode != 0 and "never overwritten" in result.stderr
    assert (root / "kbgraph.toml").read_text() == "[me]\nname = \"Ana\"\n"


def test_the_sample_vault_infers_nothing_and_shows_so(tmp_path):
    root = copy_sample(tmp_path / "sample")
    result = run_kbg("profile", "show", "--vault", str(root))
    assert result.returncode == 0 and tomllib.loads(result.stdout) == {}
    assert "Nothing to infer" in result.stdout
