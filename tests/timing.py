"""Timing for the tests that prove a cost grows linearly: they compare two sizes in one run (a ratio
on this machine, never an absolute time), each the fastest of a few calls so a busy neighbour counts less."""

from __future__ import annotations

import time


def fastest(call, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best
