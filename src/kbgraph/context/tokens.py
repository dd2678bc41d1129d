"""Counting tokens the way a model reads text: the embedding model's own WordPiece tokenizer.

all-MiniLM-L6-v2's tokenizer.json (in the model folder `kbg model install` fills) counts with the
`tokenizers` library, without special tokens, truncation or padding: loaded once per process,
lazily, and checked against its pinned sha256. When the file is absent (or not the pinned one) the
count is an estimate that errs high, and the counter says so (`exact` False, `note`):

    estimate(text) = Σ over runs of letters or digits  ceil(len / 3)
                   + 1 for every other character that is not a space (punctuation, symbols, and each
                     CJK ideograph, which WordPiece reads as a word of its own)

WordPiece cuts a run into pieces of at least one character and usually far more (English averages
over four characters a token), and reads every punctuation mark as a token of its own, so the
estimate is above the real count for ordinary text (tests/test_context_tokens.py compares them).
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
import threading
from dataclasses import dataclass
from typing import Any, Protocol

_RUN = re.compile(r"[^\W_]+", re.UNICODE)
_OTHER = re.compile(r"[^\w\s]|_", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


class TokenCounter(Protocol):
    name: str
    exact: bool
    note: str | None

    def count(self, text: str) -> int: ...

    def prefix_within(self, text: str, budget: int) -> int:
        """The length of the longest prefix of text (ending at a token's end) of at most budget tokens."""
        ...


@dataclass(frozen=True)
class WordPieceCounter:
    """The embedding model's tokenizer: what its tokens are is what the budget means."""

    tokenizer: Any
    name: str = "all-MiniLM-L6-v2 WordPiece"
    exact: bool = True
    note: str | None = None

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids) if text else 0

    def prefix_within(self, text: str, budget: int) -> int:
        if budget <= 0 or not text:
            return 0
        offsets = self.tokenizer.encode(text, add_special_tokens=False).offsets
        if len(offsets) <= budget:
            return len(text)
        return offsets[budget - 1][1]


@dataclass(frozen=True)
class EstimateCounter:
    """The documented estimate, for when the model's tokenizer is not installed."""

    name: str = "estimate ceil(chars/3) per word + 1 per symbol"
    exact: bool = False
    note: str | None = ("tokens estimated, erring high: the embedding model's tokenizer is not installed "
                        "(install the model)")

    def count(self, text: str) -> int:
        return sum(_piece_costs(text)[1]) if text else 0

    def prefix_within(self, text: str, budget: int) -> int:
        if budget <= 0 or not text:
            return 0
        ends, costs = _piece_costs(text)
        running, total = [], 0
        for cost in costs:
            total += cost
            running.append(total)
        at = bisect.bisect_right(running, budget)
        return ends[at - 1] if at else 0


def _piece_costs(text: str) -> tuple[list[int], list[int]]:
    """(end offset, estimated tokens) of each run of letters or digits and each other visible character."""
    pieces: list[tuple[int, int]] = []
    for match in _RUN.finditer(text):
        run = match.group()
        cjk = len(_CJK.findall(run))
        pieces.append((match.end(), cjk + math.ceil((len(run) - cjk) / 3)))
    pieces += [(match.end(), 1) for match in _OTHER.finditer(text)]
    pieces.sort()
    return [end for end, _ in pieces], [cost for _, cost in pieces]


_LOCK = threading.Lock()
_COUNTER: TokenCounter | None = None


def token_counter() -> TokenCounter:
    """The process's counter: the model's tokenizer when its file is installed and intact, else the estimate.
    Looked for once; `reset_token_counter()` looks again (after `kbg model install`, or in tests)."""
    global _COUNTER
    with _LOCK:
        if _COUNTER is None:
            _COUNTER = _load()
        return _COUNTER


def reset_token_counter(counter: TokenCounter | None = None) -> None:
    global _COUNTER
    with _LOCK:
        _COUNTER = counter


def _load() -> TokenCounter:
    from ..embed.model_files import PINNED_FILES, model_dir

    path = model_dir() / "tokenizer.json"
    try:
        data = path.read_bytes()
    except OSError:
        return EstimateCounter()
    if hashlib.sha256(data).hexdigest() != PINNED_FILES["tokenizer.json"]:
        return EstimateCounter(note=f"tokens estimated, erring high: {path} is not the pinned tokenizer "
                                    "(install the model)")
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(data.decode("utf-8"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return WordPieceCounter(tokenizer)
