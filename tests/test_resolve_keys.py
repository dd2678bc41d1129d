"""Entity resolution, part 1: parsing names and the blocking keys that find candidates."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz")  # not yet a declared dependency: skip rather than fail without it
pytest.importorskip("jellyfish")

from kbgraph.errors import InvalidInput, MissingDependency  # noqa: E402
from kbgraph.resolve import blocking_keys, parse_name, surface_key  # noqa: E402
from kbgraph.entities.keys import MAX_NAME_CHARS  # noqa: E402


def test_a_full_name_gets_every_key_family():
    keys = blocking_keys("Arjun Mehta", ["arjun@acme.io"])
    for key in (
        "n:arjunmehta",
        "s:arjun mehta",
        "t:arjun",
        "t:mehta",
        "p:ARJN",
        "y:ARJAN",
        "i:am",
        "u:amehta",
        "u:arjunm",
        "e:arjun@acme.io",
        "u:arjun",
    ):
        assert key in keys, key


def test_a_misspelling_shares_the_phonetic_keys():
    assert {"p:ARJN", "y:ARJAN"} <= blocking_keys("Arjoon")
    assert blocking_keys("Arjoon") & blocking_keys("Arjun Mehta") >= {"p:ARJN"}


def test_keys_ignore_case_accents_punctuation_and_order():
    assert blocking_keys("José Núñez") == blocking_keys("jose nunez") == blocking_keys("JOSE NUNEZ")
    assert "s:arjun mehta" in blocking_keys("Mehta, Arjun")
    assert parse_name("O’Brien-Smith").tokens == ("obrien", "smith")
    assert parse_name("Dr. Ana Lima, PhD").tokens == ("ana", "lima")
    assert parse_name("“@sjenning”").compact == "sjenning"


def test_diminutives_share_a_given_name_key():
    assert "k:robert" in blocking_keys("Bob Smith") & blocking_keys("Robert Smith")
    assert "k:william" in blocking_keys("Bill") & blocking_keys("William Ng")


def test_handles_and_emails_are_mention_inputs():
    handle = parse_name("@amehta")
    assert (handle.kind, handle.compact) == ("handle", "amehta")
    assert "u:amehta" in blocking_keys("@amehta") & blocking_keys("Arjun Mehta")
    email = parse_name("Arjun.Mehta+kb@Acme.IO")
    assert (email.kind, email.email, email.compact) == ("email", "arjun.mehta+kb@acme.io", "arjunmehta")
    assert "e:arjun.mehta+kb@acme.io" in blocking_keys("Arjun.Mehta+kb@Acme.IO")
    assert surface_key("ARJUN@acme.io") == "arjun@acme.io"


def test_a_handle_is_an_identifier_but_not_case_sensitive():
    assert parse_name("@d-nishi").compact != parse_name("@dnishi").compact
    assert parse_name("@KnVerey").compact == parse_name("@knverey").compact
    assert parse_name("@SergeyKanzhelev").tokens == ("sergey", "kanzhelev")


def test_initials_and_acronyms_are_one_kind():
    for text in ("AJ", "A.J.", "A. J."):
        parsed = parse_name(text)
        assert (parsed.kind, parsed.compact) == ("initials", "aj"), text
    assert "i:aj" in blocking_keys("A.J.")
    assert parse_name("A. Mehta").kind == "name"


@pytest.mark.parametrize("bad", ["", "   \t\n", "!!!", "—", "🙂", "🙂🙂", "@", "...", None, 42])
def test_a_name_without_letters_or_digits_is_invalid_input(bad):
    with pytest.raises(InvalidInput) as err:
        blocking_keys(bad)
    assert "\n" not in str(err.value)


def test_a_ten_thousand_character_name_is_invalid_input():
    with pytest.raises(InvalidInput, match="10,000 characters"):
        parse_name("x" * 10_000)
    assert parse_name("a" * MAX_NAME_CHARS).compact  # the limit itself is fine


def test_an_invalid_email_is_named_in_the_error():
    with pytest.raises(InvalidInput, match="not an email address"):
        blocking_keys("Arjun Mehta", ["arjun at acme"])


def test_non_latin_names_get_word_keys_without_phonetic_codes():
    keys = blocking_keys("王伟")
    assert "t:王伟" in keys and not any(k.startswith(("p:", "y:")) for k in keys)
    assert "t:łukasz" in blocking_keys("Łukasz Wójcik") and "p:LKSS" in blocking_keys("Łukasz Wójcik")


def test_a_missing_package_names_the_pip_command(monkeypatch):
    import importlib

    from kbgraph.entities import _optional

    real = importlib.import_module

    def fake(name, *args):
        if name == "rapidfuzz":
            raise ImportError("No module named 'rapidfuzz'")
        return real(name, *args)

    monkeypatch.setattr(_optional.importlib, "import_module", fake)
    with pytest.raises(MissingDependency, match=r"pip install 'rapidfuzz==3\.14\.6' 'jellyfish==1\.3\.0'"):
        _optional.require("rapidfuzz")
