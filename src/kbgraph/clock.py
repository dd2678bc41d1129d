"""The one clock kbgraph stamps what it records with (recorded, superseded, decided, indexed).

A wall clock can be set back between runs (a laptop's clock corrected, a restore, a VM resumed), so a
stamp read from it can be earlier than stamps already stored. A stamp that follows another (a version's
end after its start, an answer after its question, a correction after the fact it corrects) is taken
with `after`: never earlier than what it follows, or history would read out of order (a relation
superseded before it was recorded is current at no moment of `as of`). Tests move time by replacing
`wall_clock`.
"""

from __future__ import annotations

import datetime as dt


def wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def now_iso() -> str:
    """Now, UTC, to the second: the form every stored stamp has, so stamps compare as text."""
    return wall_clock().isoformat(timespec="seconds")


def today_iso() -> str:
    """Today's date where the user is (valid time is in the user's days, not UTC's)."""
    return wall_clock().astimezone().date().isoformat()


def after(*previous: str | None, now: str | None = None) -> str:
    """Now (the clock's, or a run's own now), or one second after the latest of the stamps this one
    follows when now is earlier than it (a clock set back). The same second is kept: writes within a
    second are ordered by their ids. Stamps are compared as moments, not text, so one written with
    another offset (an imported "...T12:00:00+02:00") is followed correctly."""
    now = now or now_iso()
    moments = [m for m in map(_moment, previous) if m is not None]
    current = _moment(now)
    if not moments or current is None or current >= max(moments):
        return now
    return (max(moments) + dt.timedelta(seconds=1)).astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def _moment(stamp: str | None) -> dt.datetime | None:
    """A stamp as an aware moment (no offset: UTC, as kbgraph writes them); None for one that is not a
    date-time (a hand-made import's text: nothing to follow)."""
    if not stamp:
        return None
    try:
        moment = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)
