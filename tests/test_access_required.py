"""No feature function defaults `access`: a caller that forgets who is reading gets a TypeError, not LOCAL.

LOCAL reads every row, so a default of LOCAL (or None meaning LOCAL) turns every forgotten argument into
a leak that no test of the caller's own shape would see. The store's methods and the interfaces (cli/,
api/, mcp/, web/) are not feature functions; the workspace's own field is the one place the terminal
user's reader is decided, and it is the only exception.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import kbgraph
from kbgraph.access import LOCAL

SKIPPED = ("kbgraph.store", "kbgraph.cli", "kbgraph.api", "kbgraph.mcp", "kbgraph.web")
# The workspace decides the terminal user's reader (LOCAL); every feature takes it from there.
DECIDES_THE_READER = {"kbgraph.workspace.Workspace.__init__", "kbgraph.base.workspace.Workspace.__init__"}


def _feature_modules():
    for info in pkgutil.walk_packages(kbgraph.__path__, "kbgraph."):
        if not any(info.name == s or info.name.startswith(s + ".") for s in SKIPPED):
            yield importlib.import_module(info.name)


def _public(name: str) -> bool:
    return not name.startswith("_") or name == "__init__"


def _callables(module):
    """(qualified name, function) for the module's own public functions and its public classes' methods."""
    for name, obj in vars(module).items():
        if not _public(name) or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj
        elif inspect.isclass(obj):
            for method_name, member in vars(obj).items():
                function = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if _public(method_name) and inspect.isfunction(function):
                    yield f"{module.__name__}.{name}.{method_name}", function


def defaulted_access() -> list[str]:
    found = []
    for module in _feature_modules():
        for qualified, function in _callables(module):
            parameter = inspect.signature(function).parameters.get("access")
            if parameter is not None and parameter.default is not inspect.Parameter.empty \
                    and qualified not in DECIDES_THE_READER:
                shown = "LOCAL" if parameter.default is LOCAL else repr(parameter.default)
                found.append(f"{qualified} (access={shown})")
    return sorted(found)


def test_no_feature_function_defaults_access():
    offenders = defaulted_access()
    assert not offenders, f"{len(offenders)} feature functions default access:\n" + "\n".join(offenders)


def test_the_walk_sees_the_feature_functions_that_take_access():
    # A walk that saw nothing would pass the test above without reading a signature.
    seen = {q for m in _feature_modules() for q, f in _callables(m) if "access" in inspect.signature(f).parameters}
    assert {"kbgraph.search.engine.search", "kbgraph.context.brief.brief_entity",
            "kbgraph.workspace.Workspace.__init__"} <= seen
