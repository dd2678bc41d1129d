"""The vault on disk: finding it, walking it, reading files, frontmatter and dated paths.

Nothing here writes to the user's notes. Reading never raises for a bad file:
it returns a Problem that names the path and the reason, so one bad note cannot
stop an indexing run.

The vault is a boundary: every read and write of a vault file goes through vault_path, which
resolves symlinks at the moment of use and refuses a real path outside the vault's real root.
Symlinks that stay inside the vault work as the files they point to.
"""

from __future__ import annotations

import datetime as dt
import errno
import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..config import CONFIG_NAME, Config
from ..errors import OutsideVault, VaultNotFound
from ..model import Problem

INDEX_DIR = ".kbgraph"
ALWAYS_IGNORED_DIRS = {INDEX_DIR, ".git", ".hg", ".svn", "node_modules", "__pycache__"}


def find_vault(start: Path | None = None, explicit: str | os.PathLike | None = None) -> Path:
    """The vault root: an explicit path (--vault / KBG_VAULT), else the nearest marked folder up from start."""
    if explicit:
        root = Path(explicit).expanduser()
        if not root.is_dir():
            shown = shown_path(str(root))  # a byte that is not UTF-8 as \xNN, as the shell would take it
            raise VaultNotFound(f"vault {_quoted(str(root))} is not a directory", param="vault",
                                hint=f"create a vault at {shown} first")
        return root.resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file() or (folder / INDEX_DIR).is_dir():
            return folder
    raise VaultNotFound(f"no vault at or above {here}", param="vault",
                        hint="create a vault here, or give the vault's path (or set KBG_VAULT)")


# --- the vault as a boundary ------------------------------------------------------


def vault_path(root: Path | str, rel_path: str) -> Path:
    """Where a vault-relative path really is now (symlinks resolved), or OutsideVault when that is not
    inside the vault's real root (`..`, an absolute path, a symlink out).

    A path that does not exist yet resolves through the parts that do, so a file about to be created
    is checked too. Callers use the returned path straight away: resolving at the moment of use is
    what keeps a link swapped in after indexing from leading a read or a write out of the vault.
    """
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, rel_path))
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise OutsideVault(f"{shown_path(rel_path)} leads outside the vault; kbgraph neither reads nor writes "
                           "there (nothing was changed)", param="path",
                           hint="replace the symlink with the file itself, or give a path inside the vault")
    return Path(real)


class NotRegularFile(OSError):
    """A FIFO, socket or device where a note was expected: never read (opening a FIFO blocks)."""


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def read_in_vault(root: Path | str, rel_path: str, limit: int = -1) -> tuple[bytes, os.stat_result, Path]:
    """A vault file's bytes (at most limit of them when limit >= 0), its stat and its real path, read where
    it really is now. Raises OutsideVault, NotRegularFile, or the OSError of opening or reading it.

    Opened non-blocking and without following a last-moment symlink: a FIFO answers at once (and is
    refused) instead of hanging the run, and a link swapped in after vault_path is not followed.
    """
    real = vault_path(root, rel_path)
    fd = os.open(real, _READ_FLAGS)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(errno.EINVAL, NOT_REGULAR)
        data = handle.read(limit)
    return data, st, real


NOT_REGULAR = "not a regular file (a FIFO, socket or device); skipped"
OUTSIDE = "symlink points outside the vault; not followed"


def _quoted(path: str) -> str:
    """repr() of a path, with the OS's surrogate escapes for bytes that are not UTF-8 (U+DC80..U+DCFF,
    which repr shows as backslash-udcNN) shown as the bytes they stand for, backslash-xNN."""
    return re.sub(r"\\udc([89a-f][0-9a-f])", r"\\x\1", repr(path))


def shown_path(path: str) -> str:
    """A path as it can be printed and stored: bytes that are not UTF-8 (kept by the OS's surrogate
    escapes) shown as \\xNN."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class FileEntry:
    path: str  # vault-relative, POSIX separators
    size: int
    mtime: float
    root: str  # the vault root path is relative to: a read resolves against it at the moment of use


def walk_vault(root: Path, config: Config) -> tuple[list[FileEntry], list[Problem]]:
    """Every indexable file under root, sorted by path, and the problems met on the way.

    Symlinked folders inside the vault are followed once; a loop is reported instead of recursed into.
    A symlink out of the vault, a FIFO or device with a note's name, and a name that is not UTF-8 are
    reported and skipped.
    """
    files: list[FileEntry] = []
    problems: list[Problem] = []
    seen_dirs: set[tuple[int, int]] = set()
    root_str = str(root)
    real_root = os.path.realpath(root_str)
    inside = real_root.rstrip(os.sep) + os.sep

    def visit(folder: str, rel: str) -> None:
        try:
            st = os.stat(folder)
        except OSError as exc:
            problems.append(Problem(rel or ".", f"cannot read folder: {exc.strerror}"))
            return
        if (st.st_dev, st.st_ino) in seen_dirs:
            problems.append(Problem(rel, "symlink loop: folder already visited, not followed", "warning"))
            return
        seen_dirs.add((st.st_dev, st.st_ino))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            problems.append(Problem(rel or ".", f"cannot list folder: {exc.strerror}"))
            return
        for entry in entries:
            child_rel = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name.startswith(".") or entry.name in ALWAYS_IGNORED_DIRS:
                continue
            try:
                is_dir = entry.is_dir()  # follows symlinks
                is_file = not is_dir and entry.is_file()
                is_link = entry.is_symlink()
            except OSError as exc:
                problems.append(Problem(shown_path(child_rel), f"cannot stat: {exc.strerror}"))
                continue
            if not is_dir and not _has_indexable_suffix(entry.name, config):
                continue
            if is_ignored(child_rel, config.ignore, is_dir=is_dir):
                continue
            if shown_path(entry.name) != entry.name:  # the index, JSON and terminals hold text, not raw bytes
                # A note left out is an error; a folder may hold no notes at all (photos), so a warning.
                shown = shown_path(child_rel)
                problems.append(Problem(shown, "folder name is not valid UTF-8; rename it", "warning") if is_dir
                                else Problem(shown, "file name is not valid UTF-8; rename it"))
                continue
            if is_link:
                real = os.path.realpath(entry.path)
                if real != real_root and not real.startswith(inside):
                    problems.append(Problem(child_rel, OUTSIDE, "warning"))
                    continue
            if is_dir:
                visit(entry.path, child_rel)
                continue
            if not is_file:
                problems.append(Problem(child_rel, "broken symlink" if is_link else NOT_REGULAR, "warning"))
                continue
            try:
                fst = entry.stat()
            except OSError as exc:
                problems.append(Problem(child_rel, f"cannot stat: {exc.strerror}"))
                continue
            files.append(FileEntry(child_rel, fst.st_size, fst.st_mtime, root_str))

    visit(root_str, "")
    files.sort(key=lambda f: f.path)
    return files, problems


def file_entry(root: Path, rel_path: str) -> FileEntry | None:
    """The FileEntry of one vault-relative path, or None if it is not a regular file inside the vault now."""
    try:
        real = vault_path(root, rel_path)
        st = real.stat()
    except (OSError, OutsideVault):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return FileEntry(rel_path, st.st_size, st.st_mtime, str(root))


def _has_indexable_suffix(name: str, config: Config) -> bool:
    return os.path.splitext(name)[1].lower() in config.extensions


def is_ignored(rel_path: str, patterns: tuple[str, ...], is_dir: bool = False) -> bool:
    """Whether a vault-relative path matches an ignore pattern (gitignore-like globs)."""
    return ignoring_pattern(rel_path, patterns, is_dir) is not None


def ignoring_pattern(rel_path: str, patterns: tuple[str, ...], is_dir: bool = False) -> str | None:
    """The first ignore pattern a vault-relative path matches, as written, or None."""
    name = rel_path.rsplit("/", 1)[-1]
    for pattern in patterns:
        pat = pattern.strip().lstrip("/")
        if not pat:
            continue
        if "/" not in pat.rstrip("/") and fnmatch.fnmatchcase(name, pat.rstrip("/")):
            return pattern
        if fnmatch.fnmatchcase(rel_path, pat):
            return pattern
        if is_dir and (fnmatch.fnmatchcase(rel_path + "/", pat) or fnmatch.fnmatchcase(rel_path + "/**", pat)):
            return pattern
        if rel_path.startswith(pat.rstrip("/*") + "/") and pat.rstrip("/*"):
            return pattern
    return None


def why_skipped(rel_path: str, config: Config) -> str | None:
    """Why walk_vault passes over this vault-relative file path, in words (the same checks, in its
    order: each folder on the way, then the file), or None when the walk would index it."""
    parts = rel_path.split("/")
    for depth, part in enumerate(parts):
        here = "/".join(parts[:depth + 1])
        is_dir = depth < len(parts) - 1
        if part.startswith(".") or part in ALWAYS_IGNORED_DIRS:
            kind = "folder" if is_dir else "file"
            return f"{here}{'/' if is_dir else ''} is a hidden or tool {kind}, which `kbg index` never reads"
        pattern = ignoring_pattern(here, config.ignore, is_dir=is_dir)
        if pattern is not None:
            return f"matched by [index] ignore (pattern {pattern!r}) in kbgraph.toml: `kbg index` passes over it"
    if not _has_indexable_suffix(parts[-1], config):
        return f"its extension is not one of [index] extensions ({', '.join(config.extensions)})"
    return None


# --- reading one file ------------------------------------------------------------


@dataclass(frozen=True)
class RawFile:
    text: str  # decoded, newlines normalised to \n
    content_hash: str
    size: int
    mtime: float


def read_file(entry: FileEntry, config: Config) -> RawFile | Problem:
    """The file's text, or a Problem saying why it cannot be indexed."""
    import hashlib

    if entry.size > config.max_file_bytes:
        return Problem(
            entry.path,
            f"too large ({entry.size / 1048576:.1f} MB > {config.max_file_bytes / 1048576:g} MB); "
            "raise index.max_file_mb in kbgraph.toml to index it",
        )
    try:
        data, st, _ = read_in_vault(entry.root, entry.path, config.max_file_bytes + 1)
    except OutsideVault:  # replaced by a link out of the vault since the walk
        return Problem(entry.path, OUTSIDE, "warning")
    except NotRegularFile:
        return Problem(entry.path, NOT_REGULAR, "warning")
    except FileNotFoundError:
        return Problem(entry.path, "file disappeared during indexing")
    except IsADirectoryError:
        return Problem(entry.path, "is a directory")
    except OSError as exc:
        return Problem(entry.path, f"cannot read: {exc.strerror}")
    if len(data) > config.max_file_bytes:
        return Problem(entry.path, "too large (grew while being read); raise index.max_file_mb to index it")
    if b"\x00" in data[:8192]:
        return Problem(entry.path, "binary file (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(entry.path, f"not valid UTF-8 (bad byte at offset {exc.start}); save it as UTF-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    return RawFile(text=text, content_hash=digest, size=len(data), mtime=st.st_mtime)


# --- frontmatter -----------------------------------------------------------------

_FM_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)


class FrontmatterError(ValueError):
    """The YAML frontmatter cannot be parsed."""


def split_frontmatter(text: str) -> tuple[dict, int]:
    """The frontmatter mapping and the offset where the body starts.

    Raises FrontmatterError for YAML that does not parse or is not a mapping.
    """
    if not text.startswith("---"):
        return {}, 0
    first_newline = text.find("\n")
    if first_newline < 0 or text[3:first_newline].strip():
        return {}, 0  # "----" or "--- text" is not a frontmatter fence
    close = _FM_CLOSE.search(text, first_newline + 1)
    if close is None:
        raise FrontmatterError("frontmatter opened with --- on line 1 is never closed")
    raw = text[first_newline + 1 : close.start()]
    body_start = close.end() + 1 if close.end() < len(text) else close.end()
    _check_frontmatter_shape(raw)
    try:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(raw, Loader=loader) if raw.strip() else {}
    except Exception as exc:  # yaml raises many types; any means "unparseable"
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        problem_mark = getattr(exc, "problem_mark", None)
        where = f" (line {problem_mark.line + 2})" if problem_mark is not None else ""
        raise FrontmatterError(f"invalid YAML frontmatter{where}: {detail}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError(f"frontmatter must be a YAML mapping, got {type(data).__name__}")
    budget = [MAX_FRONTMATTER_NODES]
    return {str(k): json_safe(v, budget) for k, v in data.items()}, body_start


MAX_FRONTMATTER_BYTES = 256 * 1024
MAX_FRONTMATTER_DEPTH = 64
MAX_FRONTMATTER_NODES = 100_000


def _check_frontmatter_shape(raw: str) -> None:
    """Refuse frontmatter that would exhaust the YAML parser (it crashes on extreme nesting)."""
    if len(raw) > MAX_FRONTMATTER_BYTES:
        raise FrontmatterError(f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KB")
    depth = deepest = 0
    for char in raw:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    if deepest > MAX_FRONTMATTER_DEPTH:
        raise FrontmatterError(f"frontmatter nests deeper than {MAX_FRONTMATTER_DEPTH} levels")


def json_safe(value: object, budget: list[int] | None = None, depth: int = 0) -> object:
    """YAML values made JSON-serialisable (dates become ISO strings).

    Bounded: YAML anchors can make a self-referencing or exponentially shared value,
    which is an error here rather than a hang or a crash.
    """
    budget = budget if budget is not None else [MAX_FRONTMATTER_NODES]
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_FRONTMATTER_DEPTH:
        raise FrontmatterError("frontmatter is too large or too deeply nested (check YAML anchors and aliases)")
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): json_safe(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_safe(v, budget, depth + 1) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


# --- dates -----------------------------------------------------------------------

_PATH_DATE = re.compile(r"(?:^|/)(\d{4})/(\d{1,2})/(\d{1,2})(?:/|$|[-_ ])")
_NAME_DATE = re.compile(r"(?:^|[^\d])(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?![\d])")


def parse_date(value: object) -> str | None:
    """An ISO date (YYYY-MM-DD) from a frontmatter value, or None."""
    if value is None:
        return None
    match = re.match(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})", str(value))
    return _valid_date(*match.groups()) if match else None


def date_from_path(rel_path: str) -> str | None:
    """The date in a dated path: meetings/2026/01/15/x.md or 2026-01-15-standup.md."""
    match = _PATH_DATE.search(rel_path)
    if match:
        found = _valid_date(*match.groups())
        if found:
            return found
    name = rel_path.rsplit("/", 1)[-1]
    for match in _NAME_DATE.finditer(name):
        found = _valid_date(*match.groups())
        if found:
            return found
    return None


def _valid_date(year: str, month: str, day: str) -> str | None:
    try:
        return dt.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None
