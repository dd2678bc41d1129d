"""Which Host a `kbg serve` request may be addressed to. Standard library only (the CLI builds the rule).

With no tokens a loopback caller reads the whole vault, and a browser is a loopback caller: a web page
the user visits can point its own name at 127.0.0.1 (DNS rebinding) and read the answers, because the
browser thinks it talks to that page's origin. The one thing such a request cannot hide is its Host
header, which names the page's domain. So the server answers only requests addressed to the address it
is bound to (on loopback: localhost, 127.0.0.1 and [::1]) with its port, or to a name the user allowed
(`kbg serve --allow-host NAME`), and refuses the rest before any route runs.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from ..errors import InvalidInput

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARDS = ("", "0.0.0.0", "::", "[::]")  # every interface, loopback among them
DEFAULT_HTTP_PORT = 80  # the one port a browser leaves out of Host (plain http)


@dataclass(frozen=True)
class HostRule:
    """bound: the names of the bound address, each valid only with `port` (None when the port is chosen
    by the system, port 0: then any); allowed: names the user gave, with any port or none (a proxy in
    front may answer on another), or, given as NAME:PORT, with that port only."""

    bound: tuple[str, ...]
    port: int | None
    allowed: tuple[tuple[str, int | None], ...] = ()

    def allows(self, header: str | None) -> bool:
        parsed = split_host(header or "")
        if parsed is None:
            return False
        name, port = parsed
        if name in self.bound and (self.port is None or port == self.port
                                   or (port is None and self.port == DEFAULT_HTTP_PORT)):
            return True
        return any(name == n and (p is None or port == p) for n, p in self.allowed)

    def names(self) -> list[str]:
        """What the refusal lists: "127.0.0.1:8321", "kb.example.com"."""
        port = f":{self.port}" if self.port is not None else ""
        return [f"{n}{port}" for n in self.bound] + [f"{n}:{p}" if p is not None else n for n, p in self.allowed]

    def refusal(self, header: str | None) -> str:
        said = repr(header) if header else "no Host"
        return (f"this server answers requests addressed to {', '.join(self.names())}, not {said}: "
                "a page that renamed this address (DNS rebinding) is refused; `kbg serve --allow-host NAME` adds a name")


def host_rule(host: str, port: int, allow: tuple[str, ...] | list[str] = ()) -> HostRule:
    """The rule for `kbg serve --host HOST --port PORT --allow-host NAME...`: a loopback address answers
    to every loopback name; a wildcard (0.0.0.0, ::) to the loopback names and the allowed ones only (it
    cannot know which names reach it); any other address or name to itself."""
    from .tokens import is_loopback

    own = normal_name(host)
    if own in WILDCARDS:
        bound: tuple[str, ...] = LOOPBACK_NAMES
    elif is_loopback(host):
        bound = tuple(dict.fromkeys((*LOOPBACK_NAMES, own)))
    else:
        bound = (own,)
    allowed = []
    for given in allow:
        parsed = split_host(given.strip())
        if parsed is None or parsed[0] in WILDCARDS:
            raise InvalidInput(f"{given!r} is no host name to allow: give a name or address clients use, as"
                               " kb.example.com or 192.168.1.4 (with :PORT to allow that port only)", param="allow_host")
        allowed.append(parsed)
    return HostRule(bound, port or None, tuple(dict.fromkeys(allowed)))


def is_wildcard(host: str) -> bool:
    return normal_name(host) in WILDCARDS


def normal_name(host: str) -> str:
    """A host name as Host carries it: lower case, no final dot, an IPv6 address in brackets."""
    name = host.strip().lower().rstrip(".")
    try:
        if ipaddress.ip_address(name.strip("[]")).version == 6:
            return f"[{ipaddress.ip_address(name.strip('[]')).compressed}]"
    except ValueError:
        pass
    return name


def split_host(value: str) -> tuple[str, int | None] | None:
    """("localhost", 8321) for "localhost:8321", ("[::1]", None) for "[::1]"; None when it is no host."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[:end + 1], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif value.count(":") > 1:  # a bare IPv6 address (as --allow-host may give it)
        name, port_text = value, None
    else:
        name, _, port_text = value.partition(":") if ":" in value else (value, "", None)
    if not name or any(c in name for c in "/@ \t\\") or (port_text is not None and not port_text.isdigit()):
        return None
    port = int(port_text) if port_text is not None else None
    if port is not None and not 0 < port < 65536:
        return None
    return normal_name(name), port
