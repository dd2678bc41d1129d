"""`kbg graph ...` and `kbg entity relations` on the sample vault, through the real entry point."""

from __future__ import annotations

import datetime as dt
import json

import networkx as nx

from kbgraph.store import open_store

from .conftest import kbg, run_kbg


def test_neighbours_two_hops_out(indexed_vault):
    data = kbg(indexed_vault, "graph", "neighbours", "Ben Okafor", "-d", "2")
    first = [e["name"] for e in data["levels"][0]["entities"]]
    assert first == ["Ana Lima", "Chen Wei", "Lena Fischer", "María García"]  # from their reports_to: keys
    second = {e["name"]: e["path"] for e in data["levels"][1]["entities"]}
    assert [(h["from"], h["type"], h["to"]) for h in second["Project Beacon"]] == [
        ("Ben Okafor", "manages", "Chen Wei"), ("Chen Wei", "leads", "Project Beacon")]
    assert [h["type"] for h in second["Arjun Mehta"]] == ["manages", "manages"]


def test_neighbours_table_shows_each_path(indexed_vault):
    result = run_kbg("graph", "neighbours", "Ben Okafor", "--vault", str(indexed_vault))
    assert result.returncode == 0, result.stderr
    assert "Ben Okafor --manages--> Chen Wei" in result.stdout


def test_path_and_all_shortest_paths(indexed_vault):
    data = kbg(indexed_vault, "graph", "path", "Sam Li", "María García", "--all")
    assert data["hops"] == 3 and data["count"] == 2
    result = run_kbg("graph", "path", "Sam Li", "Kafka", "--vault", str(indexed_vault))
    assert "Sam Li --contributes-to--> Project Beacon --depends-on--> Kafka" in result.stdout


def test_hubs_and_export(indexed_vault, tmp_path):
    data = kbg(indexed_vault, "graph", "hubs", "-n", "3")
    assert {h["name"] for h in data["hubs"][:2]} == {"Ana Lima", "Chen Wei"}
    target = tmp_path / "graph.graphml"
    result = run_kbg("graph", "export", "--connected", "-o", str(target), "--vault", str(indexed_vault))
    assert result.returncode == 0, result.stderr
    graph = nx.read_graphml(target)
    store = open_store(indexed_vault)
    relations = store.stats()["relations"]
    store.close()
    assert graph.number_of_edges() == relations == 28
    dot = run_kbg("graph", "export", "--format", "dot", "--vault", str(indexed_vault))
    assert dot.stdout.startswith("digraph kbgraph {")
    cyto = run_kbg("graph", "export", "--format", "json", "--vault", str(indexed_vault))
    assert len(json.loads(cyto.stdout)["elements"]["edges"]) == relations


def test_graph_bad_input_is_one_line_and_exit_1(indexed_vault):
    for args, message in [
        (("neighbours", "Ben Okafor", "-d", "0"), "--depth must be between 1 and 6"),
        (("neighbours", "Ben Okafor", "-d", "50"), "--depth must be between 1 and 6"),
        (("neighbours", "Ben Okafor", "--as-of", "2999-01-01"), "--as-of 2999-01-01 is in the future"),
        (("neighbours", "Ben Okafor", "--as-of", "soon"), "--as-of 'soon' is not a date"),
        (("neighbours", "Ben Okafr"), "did you mean 'Ben Okafor'"),
        (("path", "Kubernetes", "Ben Okafor"), "are not connected"),
        (("neighbours", "Ben Okafor", "--type", "reports-too"), "did you mean reports-to"),
    ]:
        result = run_kbg("graph", *args, "--vault", str(indexed_vault))
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_type_filter_matches_either_directions_name(indexed_vault):
    leads = kbg(indexed_vault, "entity", "relations", "Project Beacon", "--type", "leads")
    led_by = kbg(indexed_vault, "entity", "relations", "Project Beacon", "--type", "led-by")
    assert leads == led_by
    assert [(r["type"], r["source"]) for r in leads["inverse_relations"]] == [("led-by", "Chen Wei")]


def test_an_expired_relation_is_not_called_missing(indexed_vault):
    run_kbg("entity", "relate", "Project Atlas", "--type", "led-by", "--target", "Sam Li", "--valid-until",
            "2020-01-01", "--vault", str(indexed_vault))
    result = run_kbg("entity", "relations", "Sam Li", "--type", "leads", "--vault", str(indexed_vault))
    assert "no current leads relations (1 expired" in result.stdout, result.stdout


def test_relations_as_of_today_through_the_cli(indexed_vault):
    data = kbg(indexed_vault, "entity", "relations", "Chen Wei", "--as-of", dt.date.today().isoformat())
    read = sorted((r["read_as"], r["other"]) for r in data["relations"] + data["inverse_relations"])
    assert ("reports-to", "Ben Okafor") in read and ("manages", "Sam Li") in read


def test_a_profile_shows_everything_connected_and_reads_as_of_a_date(indexed_vault):
    data = kbg(indexed_vault, "project", "find", "Atlas")
    assert data["connected"]["count"] >= 5 and "Kafka" in data["connected"]["by_type"]["technology"]
    assert data["relations"]["led_by"] == ["Ana Lima"] and data["as_of"] is None
    today = dt.date.today().isoformat()
    then = kbg(indexed_vault, "project", "find", "Atlas", "--as-of", today)
    assert then["as_of"] == today and then["relations"]["led_by"] == ["Ana Lima"]
    result = run_kbg("person", "find", "Ana Lima", "--as-of", "2999-01-01", "--vault", str(indexed_vault))
    assert result.returncode == 1 and "--as-of 2999-01-01 is in the future" in result.stderr
    table = run_kbg("project", "find", "Atlas", "--vault", str(indexed_vault))
    assert "Connected (within 2 hops" in table.stdout
