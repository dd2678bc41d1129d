"""all-MiniLM-L6-v2 without torch: the `tokenizers` tokenizer, safetensors weights, a numpy forward.

What sentence-transformers does for this model, step by step: strip each text,
tokenize with the model's WordPiece tokenizer (lower-casing, [CLS] ... [SEP]),
truncate to max_seq_length 256 tokens (sentence_bert_config.json; tokenizer.json's
own 128 is overridden, as sentence-transformers does), run BertModel, mean-pool the
last hidden states over the attention mask, L2-normalise.

Speed comes from batching and threads: texts are sorted by token count so each
batch pads to a length close to all of its members (results go back in input
order), and batches run concurrently, one per CPU, each on single-threaded BLAS.
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .base import embed_nonblank, empty_result, normalise_rows
from .bert_numpy import encode_mean_pooled, weights_from_tensors
from .model_files import MAX_SEQ_LENGTH, MODEL_DIM, MODEL_NAME, MODEL_VERSION, WEIGHTS_FILE, verify_model

DEFAULT_BATCH_SIZE = 16  # texts per batch at most: 8-16 measured best on KEP chunks
DEFAULT_BATCH_TOKENS = 4096  # padded tokens per batch at most (16 texts of 256 tokens)


class MiniLMTokenizer:
    """Texts to token ids (truncated, unpadded), with the model's own tokenizer.json."""

    def __init__(self, folder: Path, max_length: int = MAX_SEQ_LENGTH):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_length)  # counts [CLS] and [SEP]
        self._tokenizer.no_padding()  # each batch pads itself, to its own longest member

    def encode(self, texts: list[str]) -> list[list[int]]:
        encodings = self._tokenizer.encode_batch([text.strip() for text in texts])
        return [encoding.ids for encoding in encodings]


def pad(token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    length = max(len(ids) for ids in token_ids)
    ids = np.zeros((len(token_ids), length), dtype=np.int64)  # 0 is [PAD]
    mask = np.zeros((len(token_ids), length), dtype=bool)
    for row, sequence in enumerate(token_ids):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = True
    return ids, mask


def length_sorted_batches(token_ids: list[list[int]], max_texts: int, max_tokens: int) -> list[np.ndarray]:
    """Input positions grouped into batches of similar token counts, longest first.

    A batch holds at most max_texts texts and at most max_tokens padded tokens, so a
    batch of short texts can be wide and one of 256-token chunks stays small (the
    attention scores alone are texts x 12 x length^2 floats). A batch also ends where
    the next text is under half its longest: padding a 20-token text to 256 would cost
    more than running it in a batch of its own.
    """
    lengths = [len(ids) for ids in token_ids]
    order = np.argsort([-n for n in lengths], kind="stable")
    batches, start = [], 0
    while start < len(order):
        longest = lengths[order[start]]  # sorted: the first is the longest
        end = start + 1
        limit = min(len(order), start + max(1, min(max_texts, max_tokens // longest)))
        while end < limit and 2 * lengths[order[end]] >= longest:
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


class MiniLMEmbedder:
    """The default embedder: all-MiniLM-L6-v2 on the numpy forward pass.

    threads: batches run concurrently on this many threads (default: the usable CPUs).
    While `embed` runs, the BLAS library is held to one thread per call: OpenBLAS
    splitting each small attention matmul over two threads measured 2-6x slower than
    one thread, and collapses when another process is busy on the same cores.
    The limit is process-wide for that time (a BLAS call from another thread runs
    single-threaded meanwhile) and is lifted when `embed` returns.
    """

    name = MODEL_NAME
    version = MODEL_VERSION
    dim = MODEL_DIM

    def __init__(self, folder: Path | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, threads: int | None = None):
        self.folder = verify_model(folder)
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads or usable_cpus()
        self.tokenizer = MiniLMTokenizer(self.folder)
        config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
        self.weights = weights_from_tensors(
            load_tensors(self.folder / WEIGHTS_FILE), config["num_attention_heads"], config["layer_norm_eps"]
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_nonblank(texts, self.dim, self._embed)

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return empty_result(self.dim)
        # A BLAS kernel may round a row differently by its place in the batch, so the same text twice
        # in one call is embedded once: equal texts get bit-equal vectors, and the work is not repeated.
        unique, where = np.unique(np.array(texts, dtype=object), return_inverse=True)
        if len(unique) < len(texts):
            return self._embed([str(text) for text in unique])[where.reshape(-1)]
        token_ids = self.tokenizer.encode(texts)
        batches = length_sorted_batches(token_ids, self.batch_size, self.batch_tokens)
        out = np.empty((len(texts), self.dim), dtype=np.float32)

        def run(positions: np.ndarray) -> None:
            ids, mask = pad([token_ids[i] for i in positions])
            out[positions] = encode_mean_pooled(self.weights, ids, mask)

        with single_threaded_blas():
            if self.threads == 1 or len(batches) == 1:
                for positions in batches:
                    run(positions)
            else:
                with ThreadPoolExecutor(min(self.threads, len(batches))) as pool:
                    list(pool.map(run, batches))  # list(): re-raises a worker's exception here
        return normalise_rows(out)


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextmanager
def single_threaded_blas():
    """Hold BLAS to one thread while any embed() runs; counted, so overlapping calls from
    several threads restore the caller's setting only when the last one finishes."""
    global _BLAS_USERS, _BLAS_LIMIT
    with _BLAS_LOCK:
        if _BLAS_USERS == 0:
            from threadpoolctl import ThreadpoolController

            _BLAS_LIMIT = ThreadpoolController().limit(limits=1, user_api="blas")  # ~1 ms
        _BLAS_USERS += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS -= 1
            if _BLAS_USERS == 0:
                _BLAS_LIMIT.restore_original_limits()


_BLAS_LOCK = threading.Lock()
_BLAS_USERS = 0
_BLAS_LIMIT: Any = None


def load_tensors(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(path))
