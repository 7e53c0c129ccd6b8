"""Every ```console example of README.md and docs/*.md is the real output of its command
(issue 26, item 14): a line ``$ cuttle-search ...`` is run and its stdout compared with the
lines below it. Only what is genuinely variable is normalised: times and rates ("in 0.07 s
(424,964/s)"). A line that is just ``...`` stands for any lines the example leaves out."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuttle_search.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# examples not run by default: minutes of games (each with its own figures to compare), a
# cluster, or files the example assumes the reader has made
NOT_RUN = {
    "arena": "hundreds of games of a 10,000-iteration search: minutes",
    "hint": "reads and writes the reader's own files",
    "review": "reviews a log the reader saved with arena --log-dir",
    "play": "interactive: reads the player's moves at its prompt (tests/test_play.py drives whole games)",
    "serve": "starts a web server (tests/test_web.py drives it in a browser)",
}


def examples() -> list[tuple[str, int, str, list[str]]]:
    """(file, line, command, expected output lines) of every console example."""
    found = []
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() != "```console":
                i += 1
                continue
            i += 1
            block_start = i
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            block = lines[block_start:i]
            for j, line in enumerate(block):
                if line.startswith("$ cuttle-search "):
                    out = []
                    for rest in block[j + 1:]:
                        if rest.startswith("$ "):
                            break
                        out.append(rest)
                    found.append((path.relative_to(ROOT).as_posix(), block_start + j + 1, line[2:], out))
    return found


_VARIABLE = [
    (re.compile(r"\b\d[\d,]*(\.\d+)? (s|ms)\b"), r"<time> \2"),  # a duration
    (re.compile(r"\b\d[\d,]*(\.\d+)?(/s| nodes/s| plies/s)"), r"<rate>\2"),  # a rate
]


def normalise(line: str) -> str:
    for pattern, repl in _VARIABLE:
        line = pattern.sub(repl, line)
    return line.rstrip()


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected``, a line ``...`` standing for any lines."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and normalise(expected[0]) == normalise(actual[0]) and matches(expected[1:], actual[1:])


def test_the_docs_have_console_examples_and_each_is_run_or_said_why_not():
    found = examples()
    assert {f for f, *_ in found} >= {"README.md", "docs/search.md"}
    for file, line, command, _out in found:
        words = shlex.split(command)
        run = words[1] not in NOT_RUN and not ({"<", ">", "|"} & set(words))
        assert run or words[1] in NOT_RUN, f"{file}:{line}: {command}"


RUN = [pytest.param(c, out, id=f"{f}:{n}") for f, n, c, out in examples() if shlex.split(c)[1] not in NOT_RUN]


@pytest.mark.parametrize("command, expected", RUN)
def test_a_console_example_is_the_real_output(monkeypatch, command, expected):
    monkeypatch.chdir(ROOT)  # the examples name files from the repository's top
    r = CliRunner().invoke(main, shlex.split(command)[1:])
    assert r.exit_code == 0, r.output
    actual = r.stdout.splitlines()
    while actual and not actual[-1].strip():
        actual.pop()
    assert matches(expected, actual), "\n".join(["expected:", *expected, "", "actual:", *actual])


def test_normalising_keeps_all_but_times_and_rates():
    assert normalise("30,000 iterations in 0.07 s (424,964/s), 1 thread, seed 0") == \
        "30,000 iterations in <time> s (<rate>/s), 1 thread, seed 0"
    assert normalise("166 nodes in 0.007 s (24,293 nodes/s; loading the engine 0.051 s, not counted)") == \
        "166 nodes in <time> s (<rate> nodes/s; loading the engine <time> s, not counted)"
    assert normalise("1  jack JD 8H     29,806  0.757") == "1  jack JD 8H     29,806  0.757"
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and not matches(["a", "...", "d"], ["a", "b"])


def test_the_readme_python_example_runs_as_written(monkeypatch, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)  # its paths are the repository's
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("royal KD 1.0 ")  # the win in one, as its comment says
    assert printed[-1] == "{'status': 'won', 'winner': 'p0'}"


def test_the_position_format_examples_load():
    """Each JSON example of docs/position-format.md, its deck's ``...`` written out, is a
    position the loader takes: the example a reader copies first must not be refused."""
    import json

    from cuttle_search.game.position import Position

    text = (ROOT / "docs" / "position-format.md").read_text()
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]
    assert len(examples) >= 2
    for example in examples:
        if "..." not in example.get("deck", []):
            Position.from_dict(example)
            continue
        loaded = []  # the "..." stands for as many hidden cards as the deck holds: one count fits
        for n in range(55):
            try:
                loaded.append(Position.from_dict({**example, "deck": ["??"] * n}))
            except Exception:
                continue
        assert len(loaded) == 1, (example.get("about") or example.get("rules"), len(loaded))


def test_the_docs_count_the_shipped_positions_right():
    shipped = len(list((ROOT / "positions").glob("*.json")))
    readme = re.search(r"`positions/` has (\d+) examples", (ROOT / "README.md").read_text())
    web = re.search(r"every card of all (\d+) counted", (ROOT / "docs" / "web.md").read_text())
    assert readme and web and int(readme[1]) == int(web[1]) == shipped
