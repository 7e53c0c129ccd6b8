"""Reading untrusted text: files and JSON, refused with one line instead of a traceback.

Everything a stranger can hand the project (position files, hint requests, game logs)
comes in through here, so the limits live in one place: a size cap, UTF-8 only, and
JSON that is neither nested past ``MAX_JSON_DEPTH`` nor holds numbers Python refuses
to convert (over 4,300 digits), with no key twice in one object (which value was meant?)
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


def read_text_file(path: str | Path, error: type[CuttleError], max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of ``path``; ``error`` names the path and the problem otherwise."""
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
    except OSError as e:
        raise error(f"cannot read {str(p)!r}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise error(f"{str(p)!r} is larger than {max_bytes // (1024 * 1024)} MiB; not a file this reads")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{str(p)!r} is not UTF-8 text (byte {e.start})") from None


def not_a_pipe(path: str | Path, error: type[CuttleError], field: str) -> None:
    """Refuse a named pipe (or socket) as a file to write or append to: opening one waits,
    forever, for a reader that never comes."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # absent, or unnamable: the write itself says so
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise error(f"{field}: {str(path)!r} is a named pipe or socket, not a file")


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
        value = json.loads(text, object_pairs_hook=_object_without_repeats)
    except _RepeatedKey as e:
        raise error(f"{what}: the key {brief(e.args[0])} appears twice in one object") from None
    except json.JSONDecodeError as e:
        raise error(f"{what}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except (ValueError, RecursionError) as e:  # a number over 4,300 digits, nesting
        raise error(f"{what}: JSON this reader refuses ({str(e).splitlines()[0][:80]})") from None
    if _SURROGATE_ESCAPE.search(text):  # a pair of escapes is a character; one alone is not
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise error(f"{what}: a string holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)") from None
    return value


class _RepeatedKey(ValueError):
    pass


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
