"""Graph answers cached per store, for as long as the relations they were read from stay the same.

Each store keeps a generation counter that every change to relations (or to what their entities
show) moves, in whatever process makes it. A lookup compares one number: when it moved, the whole
cache is dropped, so invalidation costs nothing on the write side and one small read here.
"""

from __future__ import annotations

import copy
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from ..store.base import Store

_SIZE = 256  # answers kept per store, least recently used dropped first


class AnswerCache:
    def __init__(self) -> None:
        self.generation: int | None = None
        self.answers: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0

    def get(self, store: Store, key: Hashable, compute: Callable[[], Any]) -> Any:
        generation = store.relation_generation()
        if generation != self.generation:
            self.answers.clear()
            self.generation = generation
        if key in self.answers:
            self.answers.move_to_end(key)
            self.hits += 1
        else:
            self.answers[key] = compute()
            if len(self.answers) > _SIZE:
                self.answers.popitem(last=False)
        return copy.deepcopy(self.answers[key])  # a caller may change its answer; the cache's stays


_CACHES: "weakref.WeakKeyDictionary[Any, AnswerCache]" = weakref.WeakKeyDictionary()


def cache_for(store: Store) -> AnswerCache:
    """This store's cache (made on first use, gone with the store)."""
    cache = _CACHES.get(store)
    if cache is None:
        cache = _CACHES[store] = AnswerCache()
    return cache
