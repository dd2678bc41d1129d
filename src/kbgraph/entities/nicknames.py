"""English given-name diminutives: "Bob" and "Robert" are one first name to the resolver.

A small hand-written table of common, unambiguous groups. Why a table and not string
similarity: "Bill" / "William" or "Peggy" / "Margaret" share no letters that
Jaro-Winkler or a phonetic code could see. A diminutive shared by two groups
("Sandy": Alexander, Sandra) is left out, so one token maps to at most one group.
"""

from __future__ import annotations

_GROUPS = """
abigail abby abbie gail
albert al bert bertie
alexander alex alec xander
alexandra alexa lexi
andrew andy drew
anthony tony
barbara barb babs
benjamin ben benny benji
catherine cathy cat
charles charlie chuck chas
christina christine tina chrissy
christopher chris kit topher
daniel dan danny
david dave davy
deborah debbie deb debra
donald don donnie
dorothy dot dottie
douglas doug dougie
edward ed eddie ned ted teddy
elizabeth liz lizzie beth betty eliza libby
emily em emmy
eugene gene
frances fran
frederick fred freddie fritz
gerald gerry
gregory greg
harold hal
henry hank harry
isabella isabel bella izzy
jacob jake
jacqueline jackie
james jim jimmy jamie
jennifer jen jenny
jessica jess jessie
john jack johnny
jonathan jonny
joseph joe joey
joshua josh
judith judy
katherine kathryn katharine kate katie kathy kat kay
kenneth ken kenny
lawrence larry
leonard leo len lenny
margaret maggie meg peggy marge margie
matthew matt matty
michael mike mikey mick
nicholas nick nicky
pamela pam
patricia pat patty trish tricia
patrick paddy
peter pete
philip phil
rebecca becky becca
richard rick ricky dick rich
robert bob bobby rob robbie bert
ronald ron ronnie
samantha sammie
samuel sammy
stephanie steph
stephen steven steve stevie
susan sue susie suzy
theodore theo
theresa tess tessa
thomas tom tommy
timothy tim timmy
victoria vicky tori
walter walt wally
william bill billy will willy liam
zachary zach zack
"""


def _table() -> dict[str, str]:
    owners: dict[str, set[str]] = {}
    for line in _GROUPS.strip().splitlines():
        head, *rest = line.split()
        for name in (head, *rest):
            owners.setdefault(name, set()).add(head)
    # A name that two groups claim says nothing about which one is meant: drop it.
    return {name: next(iter(heads)) for name, heads in owners.items() if len(heads) == 1}


_CANONICAL = _table()


def canonical_given_name(token: str) -> str | None:
    """The group head for a lower-case given name ("bob" -> "robert"), or None if it has none."""
    return _CANONICAL.get(token)
