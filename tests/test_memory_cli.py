"""`kbg fact` and `kbg loop` end to end: JSON, tables, and errors in the CLI's words."""

from __future__ import annotations

from .conftest import kbg, run_kbg


def test_fact_and_loop_commands(indexed_vault):
    v = ("--vault", str(indexed_vault))
    added = kbg(indexed_vault, "fact", "add", "Arjun", "fountain pens", "--kind", "int", "--date", "2026-03-02")
    assert added["fact"]["kind"] == "interest" and added["page"] == "people/arjun-mehta.md"
    corrected = kbg(indexed_vault, "fact", "supersede", str(added["fact"]["id"]), "calligraphy")
    assert corrected["replaced"]["superseded_by"] == corrected["fact"]["id"]
    assert [f["text"] for f in kbg(indexed_vault, "fact", "list", "Arjun")["facts"]] == ["calligraphy"]
    history = run_kbg("fact", "list", "Arjun", "--all", *v)
    assert "fountain pens" in history.stdout and f"by #{corrected['fact']['id']}" in history.stdout
    loop = kbg(indexed_vault, "loop", "add", "Ben Okafor", "send the notes @2020-01-02")
    assert loop["loop"]["overdue"] and loop["warnings"] == ["the due date 2020-01-02 is in the past: the loop is overdue"]
    human = run_kbg("loop", "add", "Arjun", "ask about the surgery", "--due", "2999-08-15", *v)
    assert human.returncode == 0 and "written to people/arjun-mehta.md" in human.stdout and not human.stderr
    assert [x["text"] for x in kbg(indexed_vault, "loop", "list", "--due", "overdue")["loops"]] == ["send the notes"]
    assert kbg(indexed_vault, "loop", "list", "Arjun")["count"] == 1
    done = kbg(indexed_vault, "loop", "resolve", str(loop["loop"]["id"]), "--on", "2026-01-03")
    assert (done["loop"]["status"], done["loop"]["resolved_on"]) == ("resolved", "2026-01-03")
    again = run_kbg("loop", "resolve", str(loop["loop"]["id"]), *v)
    assert again.returncode == 1 and "already resolved on 2026-01-03; nothing was changed" in again.stderr
    assert kbg(indexed_vault, "loop", "list", "--all")["count"] == 2


def test_bad_input_in_the_clis_words(indexed_vault):
    v = ("--vault", str(indexed_vault))
    for args, words in ((("fact", "add", "Arjun", "chess", "--kind", "hobby"), "--kind 'hobby' is not a fact kind"),
                        (("fact", "add", "Arjun", " ", "--kind", "note"), "TEXT is empty"),
                        (("fact", "add", "Nobody", "x", "--kind", "note"), "no entity named 'Nobody'"),
                        (("fact", "supersede", "77", "x"), "no fact 77; `kbg fact list --all` shows ids"),
                        (("loop", "add", "Arjun", "x", "--due", "soon"), "--due 'soon'"),
                        (("loop", "list", "--due", "someday"), "--due 'someday'")):
        result = run_kbg(*args, *v)
        assert result.returncode == 1 and words in result.stderr, (args, result.stderr)
    ambiguous = run_kbg("fact", "add", "Sam", "x", "--kind", "note", *v)
    assert ambiguous.returncode == 1 and "Sam Li" in ambiguous.stderr and "Sam Ortiz" in ambiguous.stderr
