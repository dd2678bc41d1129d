"""The month a question asks about ("in May 2023", "in July", "on October 13, 2023"), and the boost of a note
dated then.

A conversation's session note carries its date; what was said in a session is about that month, or told a few
days after it ("last week we went camping", in the session of 3 July, about late June). So a passage of a note
dated within the month named, or up to SLACK_DAYS after it, is boosted × (1 + DATE_BOOST). On LoCoMo's dev
questions that name a month (118 of 957), passage recall@10 rose 77.5 -> 83.9; the others are untouched
(bench/RESULTS.md, dialogue recall). Month names only, capitalised as written; "May" needs a day or a year
beside it, or "in" before it, so "May I ..." names no month. Without a year, the month of any year.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

DATE_BOOST = 0.5
SLACK_DAYS = 10
_MONTHS = {name: number for number, name in enumerate(calendar.month_name) if name}
_MONTH = re.compile(r"\b(in\s+|during\s+|on\s+)?(" + "|".join(_MONTHS) + r")\b(\s+\d{1,2}(?:st|nd|rd|th)?\b)?"
                    r"(,?\s+(?:19|20)\d\d\b)?")
_YEAR_FIRST = re.compile(r"\b(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\b")


@dataclass(frozen=True)
class MonthAsked:
    month: int
    year: int | None  # None: that month in any year

    def holds(self, doc_date: str | None) -> bool:
        """Whether a note dated doc_date (ISO) is of that month, or at most SLACK_DAYS after its end."""
        if not doc_date:
            return False
        try:
            day = date.fromisoformat(doc_date[:10])
        except ValueError:
            return False
        for year in ([self.year] if self.year else [day.year, day.year - 1]):
            first = date(year, self.month, 1)
            last = date(year, self.month, calendar.monthrange(year, self.month)[1]) + timedelta(days=SLACK_DAYS)
            if first <= day <= last:
                return True
        return False


def month_asked(text: str) -> MonthAsked | None:
    """The first month the text names (see the module's rule for "May"), with its year when one is beside it."""
    for m in _MONTH.finditer(text[:2000]):
        preposition, name, day, year = m.groups()
        day_before = _YEAR_FIRST.search(text[max(0, m.start() - 4):m.end()])
        if name == "May" and not (preposition or day or year or day_before):
            continue
        found = re.search(r"\d{4}", year) if year else None
        return MonthAsked(_MONTHS[name], int(found.group()) if found else None)
    return None
