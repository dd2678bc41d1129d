"""How the CLI words a background embedding: what starting one did, and where it stands."""

from __future__ import annotations

from ..model import EmbedStart, EmbedStatus


def start_line(started: EmbedStart) -> str:
    status = started.status
    if not started.started:
        return f"an embedding is already running in the background: {status_line(status)}"
    return (f"embedding in the background (pid {status.pid}); `kbg embed --status` says how far it is, "
            f"its output goes to {status.log}")


def status_line(status: EmbedStatus) -> str:
    """One line for `kbg embed --status`."""
    if status.state == "never":
        return "no background embedding has been started on this vault"
    counts = f"{status.done:,} of {status.total:,} sections" if status.total else "sections not counted yet"
    if status.running:
        rate = f", {status.rate:,.0f}/s" if status.rate else ""
        left = f", about {_duration(status.seconds_left)} left" if status.seconds_left is not None else ""
        waiting = " (waiting for a running index)" if status.state == "waiting" else ""
        # The starter writes "starting" before the runner has a pid of its own to write.
        who = f"running (pid {status.pid})" if status.pid else "starting"
        return f"{who}{waiting}: {counts}{rate}{left}"
    said = {"done": "finished", "stopped": "stopped when asked", "failed": f"failed: {status.error}",
            "killed": "ended without finishing (killed?): `kbg embed --background` resumes it"}
    return f"not running; the last one (pid {status.pid}) {said.get(status.state, status.state)}: {counts}"


def _duration(seconds: float | None) -> str:
    seconds = int(seconds or 0)
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"
