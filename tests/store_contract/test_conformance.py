"""Every backend implements the whole protocol, with the protocol's parameter names."""

from __future__ import annotations

import inspect

from kbgraph.store.base import Store

from .conftest import open_backend


def _protocol_methods() -> dict[str, inspect.Signature]:
    return {name: inspect.signature(getattr(Store, name)) for name in dir(Store)
            if not name.startswith("_") and callable(getattr(Store, name))}


def test_every_protocol_method_exists_with_the_same_parameters(backend):
    store = open_backend(backend)
    try:
        missing, different = [], []
        for name, signature in _protocol_methods().items():
            method = getattr(store, name, None)
            if method is None:
                missing.append(name)
                continue
            wanted = [p for p in signature.parameters if p != "self"]
            if list(inspect.signature(method).parameters) != wanted:
                different.append(name)
        assert (missing, different) == ([], [])
    finally:
        store.close()


def test_the_contract_is_not_empty():
    assert len(_protocol_methods()) > 100  # a sanity floor: the contract lists what features call
