"""The layers of docs/engine.md, checked: every import of every module of the package (the
function-local ones too, ``from . import x`` resolved to the module ``x`` where it is one,
and module names written as strings for ``importlib``) goes down the layer order or stays in
its layer, no modules import each other in a circle, no code above the engine decodes
move codes or card ids by hand or works out "the other seat" as ``1 - seat``, and none
indexes a state by its ``F_*`` slots (it asks ``Position`` or ``engine/state.py``).

``python tests/test_layers.py --draw`` prints the import graph grouped by layer (the drawing
in the closing note of issue 27).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "cuttle_search"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

# The layer order of docs/engine.md, lowest first. A module may import modules of its own
# layer or of a lower one, never of a higher one. A name is a module or a package (every
# module under it); the longest matching name decides.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("version", ("cuttle_search.version",)),  # the one version source, a leaf every layer may read
    ("engine", ("cuttle_search.engine",)),
    ("game", ("cuttle_search.game",)),
    ("display", ("cuttle_search.display",)),  # positions as text: for play's terminal and the front ends
    ("analysis", ("cuttle_search.analysis",)),
    ("play", ("cuttle_search.play",)),
    ("interop", ("cuttle_search.interop",)),
    # the front ends: each is built on the layers below and none is imported from below
    ("front", ("cuttle_search.hint", "cuttle_search.client", "cuttle_search.bench", "cuttle_search.warmup",
               "cuttle_search.startup", "cuttle_search.web")),
    ("cli", ("cuttle_search.cli",)),
    # the package root: the public names, imported on first use (PEP 562); nothing imports it
    ("root", ("cuttle_search",)),
]

# Where the move code and the card id may be taken apart by hand: their homes.
ENCODING_HOMES = {"cuttle_search.engine", "cuttle_search.game.cards"}
# Where seat arithmetic may be written out: the engine (engine/seats.py and the kernels).
SEAT_HOME = "cuttle_search.engine"

# The documented exemptions: (module, line text fragment) -> reason. Keep it short.
EXEMPT: dict[tuple[str, str], str] = {
    ("cuttle_search.game.formats.gamestate", "else 1 - p"):
        "cuttle.cards' GameState is a two-seat form: the Jacks of a stack alternate between its two seats",
}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package by name."""
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py")) if ".venv" not in p.parts}


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, int]]:
    """The package modules ``name`` imports, with the line of each import."""
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[str, int]] = []
    package = _package_of(name, path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    out.append((alias.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub not in known and alias.name.startswith("__") and name.startswith(target + "."):
                    continue  # its own package's __path__: the package is imported before the module anyway
                out.append((sub if sub in known else target, node.lineno))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            # a module named in a string for importlib: import_module("m"), __import__("m")
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in ("import_module", "__import__") and node.args[0].value in known:
                out.append((node.args[0].value, node.lineno))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value:
            # "module:attribute", loaded by name
            text = node.value.partition(":")[0]
            if text in known:
                out.append((text, node.lineno))
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: {t for t, _ in imports(name, path, known) if t != name} for name, path in mods.items()}


def problems(found: list[str]) -> str:
    return "\n" + "\n".join(found)


def layer_of(name: str) -> int:
    best, rank = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    return rank


def test_every_module_has_a_layer():
    assert [m for m in modules() if layer_of(m) < 0] == []


def test_docs_engine_md_lists_the_layers_in_this_order():
    """docs/engine.md's drawing of the package names the layers in the order of ``LAYERS``."""
    doc = (ROOT.parent / "docs" / "engine.md").read_text()
    block = doc.split("```")[1]
    tops = [line.split()[0] for line in block.splitlines() if line.startswith("  ") and not line.startswith("    ")
            and line.strip()]
    names = []
    for top in tops:
        top = top.rstrip(",/")
        name = PACKAGE if top == "__init__.py" else f"{PACKAGE}.{top.removesuffix('.py')}"
        names.append(name)
    ranks = [layer_of(n) for n in names]
    assert -1 not in ranks, names
    assert ranks == sorted(ranks) and sorted(set(ranks)) == list(range(len(LAYERS))), list(zip(names, ranks))


def test_imports_go_down_the_layers():
    mods = modules()
    known = set(mods)
    upward = []
    for name, path in mods.items():
        for target, line in imports(name, path, known):
            if layer_of(target) > layer_of(name):
                upward.append(f"{path.relative_to(ROOT.parent)}:{line}: {name} ({LAYERS[layer_of(name)][0]}) imports "
                              f"{target} ({LAYERS[layer_of(target)][0]})")
    assert upward == [], problems(upward)


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    loops = cycles(graph())
    assert loops == [], problems([" <-> ".join(c) for c in loops])


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# Move codes: the card at bit 5, the target at bit 11 (six bits each), the type in the low 5
# bits (engine/layout.py); card ids: rank = id >> 2, suit = id & 3 (game/cards.py).
_SHIFTS = {2, 5, 11}
_MASKS = {31, 63}
_OFFSETS = {40, 52}  # the first Jack's id, the first Joker's id
_SEAT_WORDS = {"seat", "p", "player", "viewer", "me", "actor", "turn", "turn_player", "mover", "who", "q", "s"}


def _is_const(node: ast.AST, values: set[int]) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value in values


def _seatlike(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _SEAT_WORDS
    if isinstance(node, ast.Attribute):
        return node.attr in _SEAT_WORDS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and node.args:
        return _seatlike(node.args[0])
    return False


def hand_arithmetic(source: str) -> list[tuple[int, str]]:
    """The lines of ``source`` that decode a move code or card id by hand or compute the other
    seat as ``1 - seat``, with what each one does."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.RShift) and _is_const(node.right, _SHIFTS):
                found.append((node.lineno, f">> {node.right.value}"))
            elif isinstance(node.op, ast.BitAnd) and (_is_const(node.right, _MASKS) or _is_const(node.left, _MASKS)):
                found.append((node.lineno, "& 31/63"))
            elif isinstance(node.op, ast.Add) and (_is_const(node.left, _OFFSETS) or _is_const(node.right, _OFFSETS)):
                found.append((node.lineno, "40/52 +"))
            elif isinstance(node.op, ast.Sub) and _is_const(node.left, {1}) and _seatlike(node.right):
                found.append((node.lineno, "1 - seat"))
    return sorted(found)


def test_the_arithmetic_finder_finds_hand_decoding():
    src = "a = m >> 5 & 63\nb = m >> 11\nc = card >> 2 == 7\nd = 40 + j\ne = 1 - seat\nf = 1 - score\ng = x >> 1\n"
    assert [line for line, _ in hand_arithmetic(src)] == [1, 1, 2, 3, 4, 5]


def test_no_hand_decoding_outside_the_encodings_homes():
    found = []
    for name, path in modules().items():
        lines = path.read_text().splitlines()
        for line, what in hand_arithmetic(path.read_text()):
            text = lines[line - 1].strip()
            if any(name == m and frag in text for (m, frag) in EXEMPT):
                continue
            in_home = any(name == h or name.startswith(h + ".") for h in ENCODING_HOMES)
            seat_home = name == SEAT_HOME or name.startswith(SEAT_HOME + ".")
            if (what == "1 - seat" and not seat_home) or (what != "1 - seat" and not in_home):
                found.append(f"{path.relative_to(ROOT.parent)}:{line}: {what}: {text}")
    assert found == [], problems(found)


# The state's fields: only the engine indexes a state by its F_* slots; above it code asks
# Position's queries or engine/state.py's named reads and writes (the formats and the
# OpenSpiel adapter too, so the fields they touch are engine/state.py's tables).
STATE_HOME = "cuttle_search.engine"
# The documented exemptions: module -> reason. Empty: keep it short.
RAW_FIELDS_EXEMPT: dict[str, str] = {}


def _field_names() -> set[str]:
    """The F_* names engine/layout.py defines (read from its source, not imported)."""
    tree = ast.parse((ROOT / "engine" / "layout.py").read_text())
    return {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
            if isinstance(t, ast.Name) and t.id.startswith("F_")}


def raw_fields(source: str, names: set[str]) -> list[tuple[int, str]]:
    """The lines of ``source`` that name a state field's slot: ``L.F_HAND`` (any module
    alias), or ``from ...layout import F_HAND``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in names:
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "layout":
            found += [(node.lineno, alias.name) for alias in node.names if alias.name in names or alias.name == "*"]
    return sorted(found)


def test_the_field_finder_finds_raw_state_reads():
    names = {"F_HAND", "F_PHASE", "F_DECK"}
    src = ("a = s[L.F_HAND + p]\nfrom ..engine.layout import F_PHASE, MAX_MOVES\nb = layout.F_DECK\n"
           "c = L.MAX_MOVES\nd = S.get(s, 'phase')\n")
    assert [line for line, _ in raw_fields(src, names)] == [1, 2, 3]


def test_no_raw_state_fields_above_the_engine():
    names = _field_names()
    assert {"F_HAND", "F_PHASE", "F_DECK"} <= names
    found = []
    for name, path in modules().items():
        if name == STATE_HOME or name.startswith(STATE_HOME + ".") or name in RAW_FIELDS_EXEMPT:
            continue
        for line, field in raw_fields(path.read_text(), names):
            found.append(f"{path.relative_to(ROOT.parent)}:{line}: {field} (ask Position or engine/state.py)")
    assert found == [], problems(found)


def draw() -> str:
    """The import graph as text: each module and what it imports, grouped by layer."""
    g = graph()
    out = []
    for i, (layer, _) in enumerate(LAYERS):
        names = sorted(m for m in g if layer_of(m) == i)
        if not names:
            continue
        out.append(f"[{layer}]")
        for m in names:
            short = m.removeprefix(PACKAGE + ".") if m != PACKAGE else PACKAGE
            deps = sorted(d.removeprefix(PACKAGE + ".") if d != PACKAGE else PACKAGE for d in g[m])
            out.append(f"  {short} -> {', '.join(deps) if deps else '-'}")
    loops = cycles(g)
    out.append("cycles: " + ("; ".join(" <-> ".join(c) for c in loops) if loops else "none"))
    return "\n".join(out)


if __name__ == "__main__":
    if "--draw" in sys.argv:
        print(draw())
    else:
        print(__doc__)


# engine/state.py's accessors and the table each one's field name must be a key of
_STATE_TABLES = {"get": "GAME", "put": "GAME", "add": "GAME", "seat_get": "SEAT", "seat_put": "SEAT",
                 "seat_add": "SEAT", "jack_get": "JACK", "jack_put": "JACK", "joker_get": "JOKER",
                 "joker_put": "JOKER"}


def state_field_names() -> list[tuple[str, int, str, str]]:
    """(module, line, accessor, field) of every call ``S.accessor(state, "field", ...)`` with
    a literal field name, in modules that import ``engine.state`` as ``S``."""
    found = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text(), str(path))
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   and (n.module or "").endswith("engine") for a in n.names if a.name == "state"}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in aliases
                    and node.func.attr in _STATE_TABLES and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                found.append((name, node.lineno, node.func.attr, node.args[1].value))
    return found


def test_every_state_field_named_above_the_engine_is_in_its_table():
    """A misspelt field name in a call of engine/state.py's accessors fails here, in every
    module (mypy's ``Literal`` check covers only the typed code it is run on)."""
    from cuttle_search.engine import state

    calls = state_field_names()
    assert len(calls) > 50  # the formats and the adapter name fields this way
    wrong = [f"{m}:{line}: {acc}(..., {field!r})" for m, line, acc, field in calls
             if field not in getattr(state, _STATE_TABLES[acc])]
    assert not wrong, problems(wrong)
