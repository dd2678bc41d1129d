"""`kbg serve --workers 2` as a real process tree on a loopback port: both workers answer, a write through
one is read through any, /mcp is mounted, and Ctrl-C (SIGINT) stops the parent and its workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from .conftest import copy_indexed  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(url: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _workers(pid: int) -> set[int]:
    """uvicorn's worker processes under pid (Linux /proc): the live children that multiprocessing spawned
    (its resource tracker is a child too, and not a worker)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and b"spawn_main" in command:
            found.add(int(stat.parent.name))
    return found


@pytest.fixture
def server(indexed_sample, tmp_path):
    vault = copy_indexed(indexed_sample, tmp_path / "vault")
    port = _free_port()
    env = {**os.environ, "KBG_EMBEDDER": "fake"}
    env.pop("KBG_VAULT", None)
    proc = subprocess.Popen([sys.executable, "-m", "kbgraph.cli.app", "serve", "--workers", "2", "--port", str(port),
                             "--vault", str(vault)], env=env, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        # Two workers each import the app: on two cores shared with other work that took over 8 s. The
        # deadline is generous because a slow start is not what this test is about.
        deadline = time.monotonic() + 60
        while True:
            try:
                if _call(base + "/index/status")[0] == 200 and len(_workers(proc.pid)) >= 2:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() >= deadline:
                # stop it before reading its stderr: reading a live server's stderr waits for ever
                _stop(proc)
                pytest.fail(f"kbg serve --workers 2 did not start: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(0.1)
        yield proc, base, vault
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:  # the test failed before Ctrl-C: kill the workers too, or they outlive it
        workers = _workers(proc.pid)
        proc.kill()
        proc.wait(5)
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_two_workers_serve_reads_writes_and_mcp_then_stop_on_ctrl_c(server):
    proc, base, vault = server
    workers = _workers(proc.pid)
    assert len(workers) == 2
    status, body = _call(base + "/search?q=project&limit=3")
    assert status == 200 and json.loads(body)["count"] > 0
    made = _call(base + "/relations", {"source": "Ana Lima", "type": "works-with", "target": "Ben Okafor"})
    assert made[0] == 200, made
    for _ in range(6):  # whichever worker answers reads the write: they share the store
        status, body = _call(base + "/relations?name=Ana%20Lima&type=works-with")
        assert status == 200 and "Ben Okafor" in body
    assert "Ben Okafor" in (vault / "people/ana-lima.md").read_text()
    mcp = _call(base + "/mcp/", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
        {"Accept": "application/json, text/event-stream"})
    assert mcp[0] == 200 and "serverInfo" in mcp[1]
    proc.send_signal(signal.SIGINT)
    assert proc.wait(8) == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
