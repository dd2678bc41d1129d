"""The optional LLM extractor against a local stub of an OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kbgraph.config import config_from_dict
from kbgraph.errors import ConfigError
from kbgraph.ingest.pipeline import index_vault

from .conftest import run_kbg


class Stub:
    """An HTTP server that answers each chat completion with the next of `answers` (then the last)."""

    def __init__(self, answers: list[object]):
        self.answers, self.requests = answers, []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                answer = stub.answers[min(len(stub.requests) - 1, len(stub.answers) - 1)]
                content = answer if isinstance(answer, str) else json.dumps(answer)
                data = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1/chat/completions"
        # serve_forever checks for shutdown every poll_interval (0.5 s by default): each close waited that long
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def llm_vault(tmp_path):
    root = tmp_path / "v"
    (root / "people").mkdir(parents=True)
    for name in ("Ana Lima", "Ben Okafor"):
        slug = name.lower().replace(" ", "-")
        (root / "people" / f"{slug}.md").write_text(f"---\ntype: person\nname: {name}\n---\n# {name}\n")
    (root / "notes.md").write_text("# Org\n\nSince spring Ana Lima answers to Ben Okafor on hiring.\n")
    return root


def _configure(root, url):
    (root / "kbgraph.toml").write_text(f'[extract]\npatterns = false\n\n[extract.llm]\nurl = "{url}"\nmodel = "stub"\n')


def _pending(root):
    return json.loads(run_kbg("entity", "suggest-relations", "--vault", str(root), "--json").stdout)["pending"]


def test_valid_model_output_becomes_a_low_confidence_suggestion(llm_vault):
    stub = Stub([{"relations": [{"source": "Ana Lima", "type": "reports-to", "target": "Ben Okafor",
                                 "evidence": "Since spring Ana Lima answers to Ben Okafor on hiring."}]}])
    try:
        _configure(llm_vault, stub.url)
        report = index_vault(llm_vault)
    finally:
        stub.close()
    assert report.warnings == 0, report.problems
    (suggestion,) = _pending(llm_vault)
    assert (suggestion["source"], suggestion["type"], suggestion["target"]) == ("Ana Lima", "reports-to", "Ben Okafor")
    assert (suggestion["confidence"], suggestion["rule"]) == ("auto-low", "llm:stub")
    request = stub.requests[0]
    assert request["model"] == "stub" and request["response_format"]["type"] == "json_schema"
    assert "Ana Lima (person)" in request["messages"][1]["content"]


@pytest.mark.parametrize("answer, message", [
    ("not json at all", "model output is not JSON"),
    ({"items": []}, "no \"relations\" list"),
    ({"relations": [{"source": "Ana Lima", "type": "adores", "target": "Ben Okafor", "evidence": "x"}]},
     "unknown relation type 'adores'"),
    ({"relations": [{"source": "Ana Lima", "type": "reports-to", "target": "Zed", "evidence": "x"}]},
     "'Zed' is not an entity mentioned in this section"),
    ({"relations": [{"source": "Ana Lima", "type": "reports-to", "target": "Ben Okafor",
                     "evidence": "Ana said so in a dream"}]}, "its evidence is not text of this section"),
    ({"relations": [{"source": "Ana Lima", "type": "reports-to"}]}, "needs source, type and target"),
])
def test_malformed_or_partial_output_is_reported_per_section(llm_vault, answer, message):
    stub = Stub([answer])
    try:
        _configure(llm_vault, stub.url)
        report = index_vault(llm_vault)
    finally:
        stub.close()
    problems = [p for p in report.problems if p.reason.startswith("LLM extractor")]
    assert len(problems) == 1 and problems[0].path == "notes.md:1" and message in problems[0].reason
    assert _pending(llm_vault) == []


def test_an_unreachable_endpoint_is_one_warning_and_the_index_finishes(llm_vault):
    _configure(llm_vault, "http://127.0.0.1:9/v1/chat/completions")
    report = index_vault(llm_vault)
    assert report.errors == 0 and report.indexed == 3
    assert [p.reason.split(":")[0] for p in report.problems] == ["LLM extractor skipped"]


def test_the_llm_extractor_is_off_unless_configured(llm_vault):
    assert config_from_dict({}).llm is None


@pytest.mark.parametrize("llm, message", [
    ({"url": "ftp://x", "model": "m"}, "url must be an http(s) address"),
    ({"url": "http://x"}, "model must be a model name"),
    ({"url": "http://x", "model": "m", "timeout": 0}, "timeout must be a positive number"),
    ({"url": "http://x", "model": "m", "temperature": 1}, "takes url, model"),
])
def test_bad_llm_settings_are_config_errors(llm, message):
    with pytest.raises(ConfigError) as info:
        config_from_dict({"extract": {"llm": llm}})
    assert message in str(info.value)
