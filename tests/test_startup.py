"""Start-up: a text-only search and the listing commands never import numpy, the embedder or the
model's tokenizer (issue 16: a text-only `kbg search` spent ~110 ms importing numpy it never used).

Each command runs in a fresh interpreter (a module once imported stays in sys.modules, so in-process
runs would prove nothing), through the entry point, and reports which heavy modules it loaded. A
hybrid search over an index with vectors is the control: it must load numpy, so the probe sees it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import copy_indexed, copy_sample, run_kbg

HEAVY = ("numpy", "onnxruntime", "tokenizers", "rapidfuzz", "jellyfish", "yaml", "concurrent.futures",
         "kbgraph.embed")
# A machine-readable output draws nothing: Rich stays unloaded too.
DRAWING = ("rich",)

PROBE = """
import json, sys
from kbgraph.cli.app import main
sys.argv = ["kbg", *sys.argv[2:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
with open(OUT, "w") as handle:
    json.dump({"code": code, "modules": sorted(sys.modules)}, handle)
"""


def loaded(vault: Path, tmp_path: Path, *args: str, embedder: str = "fake") -> set[str]:
    """The modules `kbg ARGS` imported, run in a fresh interpreter inside vault."""
    out = tmp_path / "modules.json"
    env = {**os.environ, "KBG_EMBEDDER": embedder, "COLUMNS": "120"}
    env.pop("KBG_VAULT", None)
    code = PROBE.replace("OUT", repr(str(out)))
    done = subprocess.run([sys.executable, "-c", code, "probe", *args], cwd=vault, env=env, capture_output=True,
                          text=True, timeout=60)
    report = json.loads(out.read_text())
    assert report["code"] in (0, None), done.stderr
    return set(report["modules"])


def heavy(modules: set[str], names: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(name for name in names if name in modules)


@pytest.fixture(scope="module")
def text_only_sample(tmp_path_factory) -> Path:
    """The sample vault indexed without vectors ([search] embedder "none"): what a user without the
    model has, and where a default-mode search is text and graph only."""
    root = copy_sample(tmp_path_factory.mktemp("text-only") / "vault")
    result = run_kbg("index", "--vault", str(root), "--json", env={"KBG_EMBEDDER": "none"})
    assert result.returncode == 0, result.stderr
    return root


def test_a_bm25_search_imports_no_numpy_even_when_the_index_has_vectors(shared_sample, tmp_path):
    assert heavy(loaded(shared_sample, tmp_path, "search", "token rotation", "--mode", "bm25")) == []


def test_a_default_search_on_an_index_without_vectors_imports_no_numpy(text_only_sample, tmp_path):
    modules = loaded(text_only_sample, tmp_path, "search", "token rotation", embedder="minilm")
    assert heavy(modules) == []


def test_json_output_draws_nothing(shared_sample, tmp_path):
    modules = loaded(shared_sample, tmp_path, "search", "token rotation", "--mode", "bm25", "--json")
    assert heavy(modules, HEAVY + DRAWING) == []


@pytest.mark.parametrize("args", [
    ("--help",),
    ("search", "--help"),
    ("entity", "list"),
    ("entity", "list", "--json"),
    ("entity", "suggestions"),
    ("index", "status"),
    ("list",),
])
def test_listing_commands_import_no_numpy(shared_sample, tmp_path, args):
    assert heavy(loaded(shared_sample, tmp_path, *args)) == []


def test_the_probe_sees_numpy_when_a_search_uses_vectors(shared_sample, tmp_path):
    """The control: a hybrid search over vectors loads numpy and the embedder, and the probe says so."""
    modules = loaded(shared_sample, tmp_path, "search", "token rotation", "--json")
    assert {"numpy", "kbgraph.embed"} <= modules


def test_an_index_with_nothing_to_embed_imports_no_numpy(shared_sample, tmp_path):
    """A `kbg index` that finds no change ran the embed stage, whose package import loaded numpy (~60 ms)
    to do nothing."""
    vault = copy_indexed(shared_sample, tmp_path / "vault")
    modules = loaded(vault, tmp_path, "index", "--json")
    assert "kbgraph.embed.stage" in modules  # the stage ran (the control)
    assert heavy(modules, ("numpy", "onnxruntime", "tokenizers")) == []


def test_a_write_loads_no_masked_arrays_nor_a_model(text_only_sample, tmp_path):
    """A one-page write re-reads the page through the doc graph, which uses numpy; its np.unique imported
    numpy.ma (~6-14 ms) for a check on masked arrays kbgraph never makes. Without vectors, no model."""
    vault = copy_indexed(text_only_sample, tmp_path / "vault")
    modules = loaded(vault, tmp_path, "entity", "relate", "Ben Okafor", "--type", "mentors", "--target", "Chen Wei",
                     embedder="none")
    assert {"numpy", "kbgraph.docgraph.relate"} <= modules  # the control: the re-read ran the doc graph
    assert heavy(modules, ("numpy.ma", "onnxruntime", "tokenizers", "kbgraph.embed.onnx_backend")) == []


def test_reading_the_resolution_weights_loads_no_fuzzy_matcher():
    """Every write's entity stage reads the stored weights and thresholds (resolve.decisions, resolve.prose);
    the resolve package used to import its whole pipeline, rapidfuzz and jellyfish with it, on the way."""
    code = ("import sys, kbgraph.resolve.decisions, kbgraph.resolve.prose, kbgraph.resolve.references; "
            "print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    modules = set(done.stdout.split())
    assert "kbgraph.resolve.scoring" in modules  # the control
    assert heavy(modules, ("rapidfuzz", "jellyfish", "kbgraph.resolve.features", "kbgraph.resolve.resolver")) == []


def test_the_resolve_package_still_exports_every_name():
    import importlib

    import kbgraph.resolve as resolve

    for name in resolve.__all__:
        value = getattr(resolve, name)
        home = importlib.import_module(resolve._MODULE_OF[name], "kbgraph.resolve")  # ".model", "..entities.keys"
        assert value is getattr(home, name), name
    assert set(resolve.__all__) <= set(dir(resolve))


PROSE_PROBE = """
import json, sys
from kbgraph.entities.names import name_key
from kbgraph.resolve.model import EntityProfile
from kbgraph.resolve.prose import ProseResolver
from kbgraph.resolve.scoring import DEFAULT_WEIGHTS, Thresholds

resolver = ProseResolver([EntityProfile(1, "person", "Arjun Mehta", ("AJ",))], {1: "person:arjun mehta"}, {},
                         DEFAULT_WEIGHTS, Thresholds())
known = resolver.resolve_document("a.md", [(1, 0, "Then Arjun Mehta asked about the rollout.")], [], set(),
                                  frozenset({name_key("Arjun Mehta")}))
before = sorted(m for m in ("kbgraph.resolve.resolver", "rapidfuzz") if m in sys.modules)
unknown = resolver.resolve_document("b.md", [(2, 0, "Then Arjoon Mehta asked about the surgery.")], [], set(), frozenset())
print(json.dumps({"known": known[0] + known[1], "before": before,
                  "linked": [m.entity_id for _, m in unknown[0]], "after": "kbgraph.resolve.resolver" in sys.modules}))
"""


def test_the_prose_resolver_loads_the_fuzzy_matcher_only_for_a_name_it_must_decide():
    """A one-page write re-scans the page's prose; when every name in it is known (the usual case) the
    resolver index was built, and rapidfuzz imported, for nothing (~15 ms of a CLI write)."""
    done = subprocess.run([sys.executable, "-c", PROSE_PROBE], capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout)
    assert report["known"] == [] and report["before"] == []
    assert report["linked"] == [1] and report["after"]  # the control: a misspelt name is still resolved
