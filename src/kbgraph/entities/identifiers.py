"""What a page's frontmatter says that names one person only: birth date, id number, email, phone.

Two pages with one type and name are one entity unless these disagree (entities/namesakes.py): a
value both pages carry and that differs (a birth date), or two sets of values that share none (the
emails of each page) marks two people who share a name. Values are compared normalised, so
"12/03/1980" and "1980-03-12", or "+44 20 7946 0958" and "020 7946 0958", agree.

Pure and cheap: the entity stage reads these for every page of a name that more than one page carries.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import date

# Frontmatter keys (case-folded, '-' and ' ' read as '_') of each identifier kind.
IDENTIFIER_KEYS = {
    "dob": "dob", "birthday": "dob", "born": "dob", "birth_date": "dob", "date_of_birth": "dob", "birthdate": "dob",
    "id_number": "id", "idnumber": "id", "national_id": "id", "ssn": "id", "soc_sec_id": "id", "passport": "id",
    "personal_id": "id", "tax_id": "id", "employee_id": "id", "staff_id": "id", "person_id": "id",
    "email": "email", "emails": "email", "mail": "email", "e_mail": "email", "work_email": "email",
    "phone": "phone", "phones": "phone", "mobile": "phone", "tel": "phone", "telephone": "phone", "cell": "phone",
    "phone_number": "phone",
}
KINDS = ("dob", "id", "email", "phone")
PHONE_DIGITS = 9  # the national number without its trunk prefix or country code
_WORDS = re.compile(r"[^\W_]+")
_MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
_EMAIL = re.compile(r"[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+\.[^@\s<>()\[\],;:\"]+")


def frontmatter_kind(key: object) -> str | None:
    return IDENTIFIER_KEYS.get(re.sub(r"[-\s]+", "_", str(key).strip().casefold()))


def identifiers(attributes: Mapping[str, object]) -> dict[str, frozenset[str]]:
    """kind -> the page's normalised values of it (kinds without a value left out)."""
    found: dict[str, set[str]] = {}
    for key, value in attributes.items():
        kind = frontmatter_kind(key)
        if kind is None:
            continue
        for raw in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(raw, bool) or not isinstance(raw, (str, int, float, date)):
                continue
            normal = _NORMALISE[kind](str(raw))
            if normal:
                found.setdefault(kind, set()).add(normal)
    return {kind: frozenset(values) for kind, values in found.items()}


def disagreement(a: Mapping[str, frozenset[str]], b: Mapping[str, frozenset[str]]) -> str | None:
    """The first identifier kind both carry and on which they share no value ("dob"), else None."""
    for kind in KINDS:
        left, right = a.get(kind), b.get(kind)
        if left and right and not left & right:
            return kind
    return None


def normalise_phone(value: str) -> str | None:
    """The last PHONE_DIGITS digits: a country code or trunk '0' in front does not change the number."""
    digits = re.sub(r"\D", "", value)
    return digits[-PHONE_DIGITS:] if len(digits) >= 7 else None


def parse_dob(value: str) -> str | None:
    """An ISO date from 1980-03-12, 19800312, 12/03/1980 (day first unless that cannot be),
    12 March 1980 or March 12, 1980; None for anything else."""
    text = value.strip().casefold()
    found = re.fullmatch(r"(\d{4})-?(\d{1,2})-?(\d{1,2})(?:t.*)?", text)
    if found:
        return _iso(int(found[1]), int(found[2]), int(found[3]))
    found = re.fullmatch(r"(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})", text)
    if found:
        first, second, year = int(found[1]), int(found[2]), int(found[3])
        return _iso(year, first, second) if first <= 12 < second else _iso(year, second, first)
    words = _WORDS.findall(text)
    numbers = [int(w) for w in words if w.isdigit()]
    months = [_MONTHS[w[:3]] for w in words if w[:3] in _MONTHS and not w.isdigit()]
    if len(numbers) == 2 and len(months) == 1:
        year = max(numbers)
        return _iso(year, months[0], min(numbers)) if year > 31 else None
    return None


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _email(value: str) -> str | None:
    text = unicodedata.normalize("NFKD", value.strip().strip("<>\"'")).casefold()
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text if _EMAIL.fullmatch(text) else None


def id_number(value: str) -> str | None:
    """Letters and digits only, case-folded ("123-45-6789" is 123456789); at least 4 of them."""
    text = "".join(_WORDS.findall(value.casefold()))
    return text if len(text) >= 4 and any(ch.isdigit() for ch in text) else None


_NORMALISE = {"dob": parse_dob, "id": id_number, "email": _email, "phone": normalise_phone}
