"""Reading untrusted text: files and JSON, refused with one line instead of a traceback.

Everything a stranger can hand the project (position files, hint requests, game logs)
comes in through here, so the limits live in one place: a size cap, UTF-8 only, and
JSON that is neither nested past ``MAX_JSON_DEPTH`` nor holds whole numbers of more
than ``MAX_INT_DIGITS`` digits (no field takes one; Python refuses to convert over 4,300), with no key twice in one object (which value was meant?)
and no string that is not Unicode text (a lone surrogate such as ``"\\ud800"``, valid
JSON that no output could print)."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from .errors import CuttleError, brief

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_JSON_DEPTH = 64
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the start of a \\uD800-\\uDFFF escape


def whole_number(text: str, most: int = 10**12) -> int | None:
    """``text`` as a whole number from 0 to ``most`` (decimal digits only, spaces around
    allowed), else None: never converts a string too long to be in range (Python refuses
    over 4,300 digits, and a long one costs time)."""
    t = text.strip()
    if not (t.isascii() and t.isdigit()):
        return None
    t = t.lstrip("0") or "0"  # (zeros in front: as many as one likes, never converted)
    if len(t) > len(str(most)):
        return None
    k = int(t)
    return k if k <= most else None


def read_text_file(path: str | Path, error: type[CuttleError], max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of ``path`` (a byte order mark at its start skipped); ``error`` names
    the path and the problem otherwise."""
    if not isinstance(path, (str, os.PathLike)):
        raise error(f"path: expected a file path, got {type(path).__name__}")
    p = Path(path)
    try:
        if p.is_dir():
            raise error(f"{str(p)!r} is a directory, not a file")
        # a named pipe with no writer would block the open forever: opened without waiting, a
        # pipe is then read as usual (to its end; one nobody writes to reads as empty)
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:
            data = f.read(max_bytes + 1)
            if not data and stat.S_ISFIFO(os.fstat(f.fileno()).st_mode):
                raise error(f"{str(p)!r} is a named pipe that nobody was writing to (give the file, or pipe it to /dev/stdin)")
    except OSError as e:
        raise error(f"cannot read {str(p)!r}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise error(f"{str(p)!r} is larger than {max_bytes // (1024 * 1024)} MiB; not a file this reads")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # (a byte order mark, as some editors save UTF-8)
    except UnicodeDecodeError as e:
        raise error(f"{str(p)!r} is not UTF-8 text (byte {e.start})") from None


def write_whole(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` so that a failure (a full disk, an interrupt) leaves the
    file as it was, never half written: a regular file (new or replaced) is written beside
    itself and renamed over (keeping its permissions), through a symbolic link to its
    target; a device or a pipe (``/dev/stdout``), or a file whose neighbour cannot be made
    (a folder one may not add to, a name too long for the suffix), is written directly. The path written; raises OSError or ValueError."""
    p = Path(path)
    target = p.resolve() if p.is_symlink() and p.is_file() else p  # (/dev/stdout links to no file)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    f = None
    if not p.exists() or p.is_file():
        try:
            f = open(tmp, "w", encoding="utf-8")
        except OSError:  # (a folder one may not add to, a name with no room for the suffix)
            pass
    if f is None:  # written in place
        with open(p, "w", encoding="utf-8") as out:
            out.write(text)
        return p
    try:
        with f:
            if target.exists():
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return p


def check_writable(path: str | Path, error: type[CuttleError], field: str) -> None:
    """Refuse, before any work, a place no file can be written at, naming ``field``: an
    empty name, a directory, a socket, a named pipe nobody reads (its open would wait
    forever), an existing file that is not writable, or a new file in a directory that is
    missing or not writable. (A write can still fail later, on a full disk say: the writer
    reports that.) A pipe with a reader (``/dev/stdout`` into ``| head``) is fine."""
    if not str(path):
        raise error(f"{field}: cannot write '': an empty name is no file")
    p = Path(path)
    where = f"{field}: cannot write {brief(str(p))}"  # (a long name cut short)
    try:
        mode = p.stat().st_mode if p.exists() else None
        room = mode is not None or p.parent.is_dir() and os.access(p.parent, os.W_OK)
    except ValueError:  # a NUL in the name
        raise error(f"{where}: not a file name") from None
    except OSError as e:  # a name too long, a loop of links, ...
        raise error(f"{where}: {e.strerror or e}") from None
    if mode is None:
        if not room:
            raise error(f"{where}: its directory is missing or not writable")
        return
    if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
        raise error(f"{where}: {'a directory' if stat.S_ISDIR(mode) else 'a socket'}")
    if stat.S_ISFIFO(mode):
        try:
            os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # ENXIO: nobody reads it
            raise error(f"{where}: a named pipe that nobody reads, whose open would wait") from None
        return
    if not os.access(p, os.W_OK):
        raise error(f"{where}: not writable")


def _depth_ok(text: str) -> bool:
    """Whether brackets nest at most ``MAX_JSON_DEPTH`` deep (strings skipped)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return True
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def parse_json(text: str, error: type[CuttleError], what: str) -> Any:
    """``json.loads`` for untrusted text; ``what`` names the input in the message."""
    if not isinstance(text, str):
        raise error(f"{what}: expected JSON text")
    if not _depth_ok(text):
        raise error(f"{what}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        value = json.loads(text, object_pairs_hook=_object_without_repeats, parse_int=_bounded_int)
    except _RepeatedKey as e:
        raise error(f"{what}: the key {brief(e.args[0])} appears twice in one object") from None
    except _LongNumber as e:  # named by its key where one stands right before it (not in a list)
        where = _key_before_long_number(text, e.args[0]) or what
        raise error(f"{where}: a number of {e.args[0]:,} digits; no field takes one longer than {MAX_INT_DIGITS}") from None
    except json.JSONDecodeError as e:
        raise error(f"{what}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except (ValueError, RecursionError) as e:  # nesting, and what else json refuses
        raise error(f"{what}: JSON this reader refuses ({str(e).splitlines()[0][:80]})") from None
    if _SURROGATE_ESCAPE.search(text):  # a pair of escapes is a character; one alone is not
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise error(f"{what}: a string holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)") from None
    return value


class _RepeatedKey(ValueError):
    pass


class _LongNumber(ValueError):
    pass


MAX_INT_DIGITS = 100  # longer than any number a field takes (seeds: 20 digits), far short of Python's 4,300
_LONG_DIGITS = re.compile(r"(?<![\d.eE+-])-?\d{" + str(MAX_INT_DIGITS + 1) + r",}(?![\d.eE])")  # (a whole number)
_KEY_BEFORE = re.compile(r'"([A-Za-z_][A-Za-z0-9_]{0,39})"\s*:\s*-?$')


def _key_before_long_number(text: str, digits: int) -> str | None:
    """The key of the first run of more than ``MAX_INT_DIGITS`` digits in ``text``, when
    that run is the number json refused (``digits`` long) and a key stands right before it;
    else None (a number in a list, or digits inside a string)."""
    run = _LONG_DIGITS.search(text)
    if run is None or len(run.group().lstrip("-")) != digits:
        return None
    key = _KEY_BEFORE.search(text, max(0, run.start() - 60), run.start())
    return key.group(1) if key else None


def _bounded_int(digits: str) -> int:
    """A JSON integer, refused past ``MAX_INT_DIGITS`` digits (before the conversion, which
    Python refuses past 4,300 and which costs time before that)."""
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _LongNumber(len(digits.lstrip("-")))
    return int(digits)


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing a key given twice (``json`` keeps the last)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out
