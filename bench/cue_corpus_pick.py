"""Pick the sentences of the cue-coverage corpus (bench/data/cues/) from two public repositories.

The sentences were picked by this script and then labelled by hand, before any rule was tuned
(bench/data/cues/README.md). It is kept so the pick can be checked: same commits, same sentences.

Usage: python bench/cue_corpus_pick.py RFCS_GIT_DIR PROPOSAL_GIT_DIR > candidates.jsonl
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

SOURCES = (
    ("rust-lang/rfcs", "text/", "MIT OR Apache-2.0", 180),
    ("golang/proposal", "design/", "BSD-3-Clause", 180),
)
RELATING = 100  # sentences of the second pass, per repository
_FENCE = re.compile(r"^\s*(```|~~~)")
_REF = re.compile(
    r"\bRFCs?\s*#?\d+|rust-lang/rfcs#\d+|(?<![\w/])#\d{3,6}\b|\bissues?\s+#?\d{3,6}|go(?:lang\.org|\.dev)/issues?/\d+"
    r"|\bproposal\s+#?\d+|\bgo\s+(?:command|vet|build|test|mod)\b|\bGo\s+1\.\d+|\bGOPATH\b|\bgo\.mod\b|\]\([^)]*\)|\b(?:LLVM|Cargo|crates\.io|rustc|rustdoc|rustup|Clippy|rustfmt|Miri|GCC|Clang"
    r"|WebAssembly|GitHub|gopls|cgo|gofmt|Go modules|Bazel|Git|Unicode|UTF-8|JSON|TLS|HTTP/2|QUIC|protobuf|Linux"
    r"|Windows|macOS|POSIX|libc|glibc|musl|Cranelift|C\+\+|Python|Java|Swift|Haskell|Kubernetes|PostgreSQL|DWARF"
    r"|ELF|SQLite|Docker|gRPC|OpenTelemetry|Prometheus)\b")
_SELF = re.compile(r"\b(?:[Tt]his|[Tt]he present)\s+(?:RFC|proposal|design|document|change|feature|doc)\b"
                   r"|^(?:We|It|This)\b")
_CUE = re.compile(
    r"\b(?:depend\w*|requir\w*|build\w*\s+(?:on|upon)|based\s+on|rel(?:y|ies|ied)\s+on|extend\w*|supersed\w*"
    r"|replac\w*|obsolet\w*|deprecat\w*|in\s+favou?r\s+of|part\s+of|subset\s+of|us(?:e|es|ed|ing)\b|leverag\w*"
    r"|related|see\s+also|similar\s+to|follow\w*\s+(?:up|on)|amend\w*|inspired|implement\w*\s+(?:in|with|on)"
    r"|need\w*|block\w*|prerequisite|complement\w*|companion|continu\w*|revis\w*|built\s+on|on\s+top\s+of)\b",
    re.IGNORECASE)
_HEADER = re.compile(r"(?:Feature Name|Start Date|RFC PR|Rust Issue|Author|Last updated|Discussion at)\b", re.I)
# Another document named (an RFC, an issue or proposal, a link to one) or the page itself, and a word
# that relates documents: the sentences a design-document graph lives on.
_DOC = re.compile(r"\bRFCs?\s*#?\d+|rust-lang/rfcs(?:#|/pull/)\d+|(?<![\w/])#\d{3,6}\b|go(?:lang\.org|\.dev)/issues?/\d+"
                  r"|\b(?:issue|proposal)\s+#?\d+|\b[Tt]his\s+(?:RFC|proposal|design|document)\b")
_DOC_CUE = re.compile(r"\b(?:supersed\w*|replac\w*|obsolet\w*|builds?\s+(?:on|upon)|built\s+(?:on|upon)|depend\w*|requir\w*"
                      r"|extend\w*|amend\w*|part\s+of|related|see\s+also|follow\w*|based\s+on|continu\w*|revis\w*"
                      r"|in\s+favou?r\s+of|complement\w*|companion|prerequisite|block\w*|subsum\w*|generaliz\w*)\b",
                      re.IGNORECASE)
# Named software, languages, platforms and standards these documents talk about (proposed as mentions;
# the labeller keeps, drops or adds them).
TECH = re.compile(
    r"(?<![\w./-])(?:LLVM|Cargo|crates\.io|rustc|rustdoc|rustup|Clippy|rustfmt|Miri|GCC|Clang|WebAssembly|GitHub|gopls"
    r"|cgo|gofmt|go vet|Go modules|Bazel|Git|Unicode|POSIX|libc|glibc|musl|Cranelift|C\+\+|Python|Java|Swift|Haskell"
    r"|Kubernetes|PostgreSQL|Redis|DWARF|SQLite|Docker|gRPC|OpenTelemetry|Prometheus|Servo|serde|OpenSSL|libcurl|Linux"
    r"|Windows|macOS|Rust|Go|JavaScript|TypeScript|Kotlin|Scala|OCaml|Deno|npm|Chromium|Firefox|BoringSSL|QUIC|HTTP/2"
    r"|JSON|protobuf|Protocol Buffers|Mercurial|GOPATH|go command|vgo|godoc|pprof|Delve|gccgo|Plan 9|Android|iOS"
    r"|FreeBSD|OpenBSD|NetBSD|Solaris|RISC-V|WASI|Emscripten|tokio|Tokio|hyper|futures|regex|chalk|Polonius"
    r"|goimports|staticcheck|golang\.org/x/\w+|x/tools|x/net|x/sys|x/crypto|x/exp)(?![\w-])")
DOC_REFS = (r"rust-lang/rfcs#\d+", r"\bRFC\s?#?\d+", r"\bRFCs?\s+\d+", r"go(?:lang\.org|\.dev)/issues?/\d+",
            r"\b[Ii]ssue\s+#?\d{3,6}", r"\bproposal\s+#?\d+", r"(?<![\w/])#\d{3,6}\b",
            r"\]\(https://github\.com/rust-lang/rfcs/(?:pull/\d+|blob/[^)]+)\)")


def proposed_mentions(text: str) -> dict[str, str]:
    """Surface -> entity type of the references a text makes (documents are projects, software technologies)."""
    out: dict[str, str] = {}
    taken: list[tuple[int, int]] = []
    for pattern, kind in [(p, "project") for p in DOC_REFS] + [(TECH.pattern, "technology")]:
        for m in re.finditer(pattern, text):
            a, b = m.span()
            if m.group().startswith("]("):  # a link to a document: its label is the mention
                a = text.rfind("[", 0, a) + 1
                b = m.start()
            if a < b and not any(x < b and a < y for x, y in taken):
                taken.append((a, b))
                out[text[a:b]] = kind
    return out


# A relating phrase right next to a reference: the second pass, so each relation type has examples.
_REL = re.compile(r"\b(?:depends?\s+on|depended\s+on|builds?\s+(?:on|upon)|built\s+(?:on|upon)|rel(?:y|ies|ied)\s+on"
                  r"|requires?|supersed\w*|obsolete[sd]?|replac(?:e|es|ed|ing)|in\s+favou?r\s+of|part\s+of"
                  r"|component\s+of|subset\s+of|uses|using|leverag\w*|implemented\s+(?:in|with|on\s+top\s+of)"
                  r"|see\s+also|related\s+to|follow(?:s|ed)?[- ]up|amend\w*|companion|extends|extension\s+of"
                  r"|based\s+on|blocked\s+(?:on|by)|blocks)\b", re.IGNORECASE)
# Third pass: for each relation type, sentences whose phrase for it stands within 30 characters of a
# reference, so the rarer types (supersedes, replaces, part of) have examples in both halves.
TYPED = 15  # sentences per type and repository
PAIR = 12  # sentences per type and repository in the fourth pass
_TYPED = {
    "superseded-by": r"supersed\w*|obsolete[sd]?",
    "replaces": r"replac(?:e|es|ed|ing|ement)|in\s+favou?r\s+of",
    "part-of": r"part\s+of|component\s+of|subteam\s+of|subset\s+of|member\s+of",
    "uses": r"uses|using|used\s+by|leverag\w*|built\s+with|makes\s+use\s+of",
    "depends-on": r"depend\w*\s+on|builds?\s+(?:on|upon)|built\s+(?:on|upon)|rel(?:y|ies|ied)\s+on|requires?",
    "related-to": r"see\s+also|related\s+to|relates\s+to|follow(?:s|ed)?[- ]up|amend\w*|companion",
}
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                          text=True).stdout


def paragraphs(text: str):
    """Prose paragraphs of a markdown file: fenced code, headings, tables, HTML and header lists left out."""
    block: list[str] = []
    fenced = False
    for line in text.splitlines() + [""]:
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        stripped = line.strip()
        starts_item = re.match(r"[-*+]\s|\d+[.)]\s", stripped)
        if not stripped or stripped.startswith(("#", "|", "<", ">")) or starts_item:
            if block:
                yield " ".join(block)
            block = [re.sub(r"^([-*+]|\d+[.)])\s+", "", stripped)] if starts_item else []
            continue
        block.append(stripped)


def page_of(repo: str, path: str, text: str) -> dict:
    """The page a file is: its name, kind and identifier, as a vault of these files would know it."""
    number = re.match(r"(?:text|design)/0*(\d+)-", path)
    if repo == "rust-lang/rfcs":
        feature = re.search(r"^-\s*Feature Name:\s*`?([^`\n]+?)`?\s*$", text, re.MULTILINE)
        name = feature.group(1).strip() if feature else path.rsplit("/", 1)[-1][5:-3]
        return {"name": name, "kind": "rfc", "identifier": f"RFC {number.group(1)}" if number else None}
    title = re.search(r"^#\s*(?:Proposal:\s*)?(.+?)\s*$", text, re.MULTILINE)
    name = title.group(1) if title else path.rsplit("/", 1)[-1][:-3]
    return {"name": name, "kind": "proposal", "identifier": f"proposal {number.group(1)}" if number else None}


def candidates(git_dir: str, repo: str, folder: str, licence: str):
    commit = _git(git_dir, "rev-parse", "HEAD").strip()
    for path in sorted(p for p in _git(git_dir, "ls-tree", "-r", "HEAD", "--name-only").splitlines()
                       if p.startswith(folder) and p.endswith(".md")):
        text = _git(git_dir, "show", f"HEAD:{path}")
        page = page_of(repo, path, text)
        for paragraph in paragraphs(text):
            parts = [p.strip() for p in _SPLIT.split(paragraph) if p.strip()]
            for index, sentence in enumerate(parts):
                if not 30 <= len(sentence) <= 320 or sentence.count("`") > 6 or _HEADER.match(sentence):
                    continue
                ref, own, cue = bool(_REF.search(sentence)), bool(_SELF.search(sentence)), _near(sentence)
                pronoun = index > 0 and re.match(r"(?:It|They|This)\s", sentence) is not None
                ends = len(proposed_mentions(sentence)) + bool(_DOC.search(sentence) and _SELF.search(sentence))
                bucket = ("doc" if ends >= 2 and _DOC_CUE.search(sentence) and not pronoun
                          else "pronoun" if pronoun and cue and (ref or _REF.search(parts[index - 1]))
                          else "cue" if ref and cue else "lookalike" if ref or own else None)
                if bucket is None:
                    continue
                near_rel = any(abs(m.start() - b) < 40 or abs(a - m.end()) < 40 for m in _REL.finditer(sentence)
                               for a, b in _ends(sentence))
                yield {"near_rel": near_rel, "mentions": proposed_mentions(sentence), "repo": repo, "path": path, "commit": commit, "licence": licence, "page": page,
                       "prev": parts[index - 1] if index else "", "sentence": sentence, "bucket": bucket}


def _near(sentence: str) -> bool:
    """Whether a cue word stands within 80 characters of a reference (or of the page's own name)."""
    refs = [m.span() for pattern in (_REF, _SELF) for m in pattern.finditer(sentence)]
    return any(abs(m.start() - b) < 80 or abs(a - m.end()) < 80 for m in _CUE.finditer(sentence) for a, b in refs)


def _ends(sentence: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _SELF.finditer(sentence)]
    return spans + [(sentence.find(surface), sentence.find(surface) + len(surface))
                    for surface in proposed_mentions(sentence)]


def _between(pattern: re.Pattern, sentence: str) -> bool:
    """Whether a match of pattern stands between two named things, within 60 characters of each."""
    spans = sorted((sentence.find(s), sentence.find(s) + len(s)) for s in proposed_mentions(sentence))
    return any(b <= m.start() and m.end() <= c and m.start() - b < 60 and c - m.end() < 60
               for m in pattern.finditer(sentence) for (_, b), (c, _) in zip(spans, spans[1:]))


def _key(row: dict) -> str:
    return hashlib.sha256((row["path"] + "\0" + row["sentence"]).encode()).hexdigest()


def main(argv: list[str]) -> None:
    # Of each repository: 55% two references (documents, software, the page) and a relating word, 15% a cue word near a
    # reference, 15% references with no cue near (lookalikes), 15% pronoun openings after a reference.
    shares = {"doc": 0.55, "cue": 0.15, "lookalike": 0.15, "pronoun": 0.15}
    for git_dir, (repo, folder, licence, count) in zip(argv[1:3], SOURCES):
        rows = sorted({_key(r): r for r in candidates(git_dir, repo, folder, licence)}.values(), key=_key)
        picked, per_file = [], {}
        for bucket, share in shares.items():
            want = round(count * share)
            for row in rows:
                if want == 0:
                    break
                if row["bucket"] == bucket and per_file.get(row["path"], 0) < 3:
                    per_file[row["path"]] = per_file.get(row["path"], 0) + 1
                    picked.append(row)
                    want -= 1
        for row in rows:  # a bucket short of sentences leaves its share to a cue word near a reference
            if len(picked) >= count:
                break
            if row["bucket"] == "cue" and row not in picked and per_file.get(row["path"], 0) < 3:
                per_file[row["path"]] = per_file.get(row["path"], 0) + 1
                picked.append(row)
        # Second pass: a relating phrase within 40 characters of a reference, from any file.
        second = [dict(r, bucket="relating") for r in rows if r["near_rel"] and r not in picked][:RELATING]
        third, taken = [], {_key(r) for r in picked + second}
        for phrase in _TYPED.values():
            pattern = re.compile(rf"\b(?:{phrase})\b", re.IGNORECASE)
            third += [dict(r, bucket="typed") for r in rows
                      if _key(r) not in taken and any(abs(m.start() - b) < 30 or abs(a - m.end()) < 30
                              for m in pattern.finditer(r["sentence"]) for a, b in _ends(r["sentence"]))][:TYPED]
            taken |= {_key(r) for r in third}
        # Fourth pass: the phrase of a type between two named things (documents, software), at most 60
        # characters from each: "X is built on Y", "A uses B". Uses, part of and replaces are rare otherwise.
        fourth = []
        for phrase in _TYPED.values():
            pattern = re.compile(rf"\b(?:{phrase})\b", re.IGNORECASE)
            fourth += [dict(r, bucket="pair") for r in rows if _key(r) not in taken and _between(pattern, r["sentence"])][:PAIR]
            taken |= {_key(r) for r in fourth}
        for row in sorted(picked, key=lambda r: (r["path"], r["sentence"])) + second + third + fourth:
            del row["near_rel"]
            print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv)
