"""API tokens on every backend: only a salt and a digest are kept, a name is live once, revoked ones stay listed."""

from __future__ import annotations

from .builders import NOW

LATER = "2026-03-02T09:00:00+00:00"


def _token(name: str, **fields) -> dict:
    return {"name": name, "salt": f"salt-{name}", "digest": f"digest-{name}", "visibilities": ("public", "team"),
            "max_sensitivity": "internal", "created_at": NOW, **fields}


def test_a_token_reads_back_as_written(store):
    assert not store.has_api_tokens()
    with store.transaction():
        first = store.add_api_token(_token("ci"))
        second = store.add_api_token(_token("bot", visibilities=("public",), max_sensitivity="normal"))
    assert isinstance(first, int) and second > first
    assert store.has_api_tokens()
    assert store.api_token(first) == {"id": first, "name": "ci", "salt": "salt-ci", "digest": "digest-ci",
                                      "visibilities": ["public", "team"], "max_sensitivity": "internal",
                                      "created_at": NOW, "revoked_at": None}
    assert [t["name"] for t in store.api_tokens()] == ["ci", "bot"]
    assert store.api_token(999) is None


def test_a_revoked_token_no_longer_opens_but_stays_listed_and_its_name_is_free_again(store):
    with store.transaction():
        old = store.add_api_token(_token("ci"))
        assert store.revoke_api_token("ci", LATER)
        assert not store.revoke_api_token("ci", LATER)  # nothing live by that name any more
        assert not store.revoke_api_token("nobody", LATER)
    assert store.api_token(old) is None and not store.has_api_tokens()
    assert store.api_tokens() == []
    with store.transaction():
        new = store.add_api_token(_token("ci"))
    listed = store.api_tokens(include_revoked=True)
    assert [(t["id"], t["revoked_at"]) for t in listed] == [(old, LATER), (new, None)]
