"""Property tests over many random games in every ruleset: the two-seat presets with option
variants, and the games of more seats."""

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.harness import checked_random_games
from cuttle_search.engine.setup import POSITION_ERRORS
from cuttle_search.game.moves import Move
from cuttle_search.game.position import Position
from cuttle_search.game.rules import PRESETS, get_ruleset
from cuttle_search.play.selfplay import run_selfplay

from .reference import reference_moves

OPTION_VARIANTS = [
    "cuttle-cards:four=random",
    "cuttle-cards:eight-one-off,ten-counters-scuttle",
    "cuttle-cards:queens-protect-queens=off,three-takes-three",
    "cuttle-cards:nine=deck-top,hand-limit=block",
    "classic:four=random,eight-one-off",
    "bga-balanced:ten-counters-scuttle,nine=frozen",
]
ALL_RULES = list(PRESETS) + OPTION_VARIANTS
GAMES_PER_RULESET = 2000  # 11 rulesets: 22,000 checked games per CI run


@pytest.mark.parametrize("spec", ALL_RULES)
def test_random_games_keep_every_invariant(spec):
    """Cards conserved, zones sound, every decision has a move, every game ends."""
    r = get_ruleset(spec).to_array()
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    res = np.zeros((GAMES_PER_RULESET, 6), dtype=np.int64)
    bad = checked_random_games(r, 12345, 0, GAMES_PER_RULESET, s, buf, res)
    if bad:
        g = int(np.nonzero(res[:, 3])[0][0])
        pytest.fail(f"game {g}: {POSITION_ERRORS[int(res[g, 3])]} at ply {int(res[g, 4])}")
    assert np.all(res[:, 1] != L.ST_ONGOING)
    assert res[:, 0].min() > 0
    # both seats win sometimes: random play is not stuck in one pattern
    assert np.sum(res[:, 2] == 0) > GAMES_PER_RULESET // 10 and np.sum(res[:, 2] == 1) > GAMES_PER_RULESET // 10


N_SEAT_GAMES = 20_000  # per CI run, for each ruleset of more seats


@pytest.mark.parametrize("spec", ["cutthroat"])
def test_random_games_of_more_seats_keep_every_invariant(spec):
    """54 cards conserved, zones sound, every decision has a move, every game ends, every
    seat wins sometimes, and the same seed gives the same games."""
    rules = get_ruleset(spec)
    r = rules.to_array()
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    res = np.zeros((N_SEAT_GAMES, 6), dtype=np.int64)
    bad = checked_random_games(r, 2026, 0, N_SEAT_GAMES, s, buf, res)
    if bad:
        g = int(np.nonzero(res[:, 3])[0][0])
        pytest.fail(f"game {g}: {POSITION_ERRORS[int(res[g, 3])]} at ply {int(res[g, 4])}")
    assert np.all(res[:, 1] != L.ST_ONGOING) and res[:, 0].min() > 0
    for q in range(rules.players):
        assert np.sum((res[:, 1] == L.ST_WIN) & (res[:, 2] == q)) > N_SEAT_GAMES // (4 * rules.players)
    again = np.zeros((300, 6), dtype=np.int64)
    checked_random_games(r, 2026, 0, 300, s, buf, again)
    assert np.array_equal(again, res[:300])
    one = np.zeros((1, 6), dtype=np.int64)
    checked_random_games(r, 2026, 123, 1, s, buf, one)
    assert np.array_equal(one[0], res[123])


@pytest.mark.parametrize("spec", ALL_RULES)
def test_same_seed_same_game(spec):
    r = get_ruleset(spec).to_array()
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    a = np.zeros((200, 6), dtype=np.int64)
    b = np.zeros((200, 6), dtype=np.int64)
    checked_random_games(r, 7, 0, 200, s, buf, a)
    checked_random_games(r, 7, 0, 200, s, buf, b)
    assert np.array_equal(a, b)
    # game 150 replayed on its own is the same game
    c = np.zeros((1, 6), dtype=np.int64)
    checked_random_games(r, 7, 150, 1, s, buf, c)
    assert np.array_equal(c[0], a[150])
    # and another seed gives other games
    checked_random_games(r, 8, 0, 200, s, buf, b)
    assert len(set(a[:, 5]) & set(b[:, 5])) < 5


def test_selfplay_summary_is_reproducible():
    rules = get_ruleset("cuttle-cards")
    one = run_selfplay(rules, 3000, seed=99)
    two = run_selfplay(rules, 3000, seed=99)
    for key in ("wins", "draws", "stalemates", "meanPlies", "plies"):
        assert one[key] == two[key]
    assert one["wins"]["p0"] + one["wins"]["p1"] + one["draws"] == 3000


def _play_and_compare(spec: str, games: int, seed: int) -> int:
    """Random games through the Python API; at every decision the kernel's moves must
    equal the reference generator's. Returns the number of decisions compared."""
    rules = get_ruleset(spec)
    rng = np.random.default_rng(seed)
    compared = 0
    for g in range(games):
        pos = Position.deal(rules, seed=seed * 1000 + g)
        while not pos.is_over:
            d = pos.to_dict()
            fast = pos.legal_moves()
            assert len(set(fast)) == len(fast), f"duplicate moves in {d}"
            expected = reference_moves(d, rules)
            got = {m.text() for m in fast}
            assert got == expected, (
                f"{spec} game {g}: extra {sorted(got - expected)} missing {sorted(expected - got)}\n{pos.to_json()}"
            )
            compared += 1
            move = fast[int(rng.integers(len(fast)))]
            # the text and JSON notations round-trip for every generated move
            assert Move.parse(move.text(), fast) == move
            assert Move.from_json(move.to_json()) == move
            assert Move.from_code(move.code()) == move
            pos.push(move)
    return compared


@pytest.mark.parametrize("spec", ALL_RULES)
def test_generator_matches_the_reference(spec):
    assert _play_and_compare(spec, games=40, seed=3) > 500


@pytest.mark.slow
@pytest.mark.parametrize("spec", ALL_RULES)
def test_generator_matches_the_reference_long(spec):
    assert _play_and_compare(spec, games=1500, seed=11) > 20000


def test_clone_is_a_flat_copy():
    pos = Position.deal("cuttle-cards", seed=4)
    twin = pos.copy()
    twin.push(twin.legal_moves()[0])
    assert not np.array_equal(twin.state, pos.state)
    assert pos.state.dtype == np.int64 and pos.state.shape == (L.STATE_SIZE,)
