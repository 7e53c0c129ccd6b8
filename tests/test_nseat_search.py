"""The search with more seats: every seat's share of the games below each root move
(``seatScores``, ``seatWinrates``), and the opponent models (max-n, paranoid, random)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cuttle_search.analysis import SearchError, analyse
from cuttle_search.analysis.ismcts import Limit, _Worker, run_search
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.ismcts import MODEL_MAXN, MODEL_RANDOM
from cuttle_search.engine.policies import ROLLOUT_GREEDY
from cuttle_search.cli import main
from cuttle_search.game.moves import Move
from cuttle_search.game.formats import load_position
from cuttle_search.play.agents import AgentError, make_agent

POS = Path(__file__).parent.parent / "positions"
CARDS = [r + s for r in "A23456789TJQK" for s in "CDHS"] + ["X1", "X2"]


def _table(seats: list[dict], **fields) -> dict:
    """A full-information cutthroat position with p0 to act in the main phase; every card
    not named lies in the deck, but for those past the 39 the deal leaves there: they are in
    the scrap."""
    used = {c.split("(")[0] for s in seats for zone in ("hand", "points", "royals") for c in s.get(zone, [])}
    rest = [c for c in CARDS if c not in used]
    d = {"format": "cuttle-search/position", "version": 2, "rules": "cutthroat", "view": "full", "dealer": "p2",
         "turn": 6, "phase": "main",
         "seats": [{"hand": [], "points": [], "royals": [], "frozen": None, **s} for s in seats],
         "deck": rest[:39], "deckKnown": 0, "deckSeenBy": None, "scrap": rest[39:],
         "oneOff": None, "oneOffTarget": None, "twos": [], "passes": 0, "actions": 6}
    d.update(fields)
    return d


def _check_shares(result) -> None:
    """Every row: the seats' scores sum to 1 (a stalemate 1/n each), the viewer's are the
    row's own score and win rate, and the wins and the stalemates account for every visit."""
    n = result.seats
    for m in result.moves:
        assert len(m.seat_scores) == len(m.seat_win_rates) == n
        if m.visits:
            assert sum(m.seat_scores) == pytest.approx(1.0)
            assert sum(m.seat_win_rates) + m.draw_rate == pytest.approx(1.0)
            for q in range(n):
                assert m.seat_scores[q] == pytest.approx(m.seat_win_rates[q] + m.draw_rate / n)
        assert m.seat_scores[result.viewer] == pytest.approx(m.score)
        assert m.seat_win_rates[result.viewer] == pytest.approx(m.win_rate)


@pytest.mark.parametrize("name", ["cutthroat-opening-p0", "cutthroat-counter-chain-third-seat-p1",
                                  "cutthroat-joker-steals-king-p2", "midgame-main-p0", "opening-p0"])
def test_every_seat_gets_a_share_and_the_shares_sum_to_one(name):
    # greedy rollouts: with two seats the default, the learned value, reports no win rates
    result = analyse(POS / f"{name}.json", iterations=3000, seed=2, rollout="greedy")
    _check_shares(result)
    if result.seats > 2:  # the opponents' shares are measured, not the viewer's complement split evenly
        assert any(m.seat_scores[1] != m.seat_scores[2] for m in result.moves if m.visits > 100)


@pytest.mark.parametrize("name", ["midgame-main-p0", "opening-p0"])
def test_with_the_learned_value_every_seat_still_gets_a_share(name):
    result = analyse(POS / f"{name}.json", iterations=3000, seed=2)
    assert result.rollout == "value"
    for m in result.moves:
        assert m.seat_win_rates is None and m.win_rate is None and m.draw_rate is None
        assert sum(m.seat_scores) == pytest.approx(1.0) and m.seat_scores[result.viewer] == pytest.approx(m.score)


def test_a_stalemate_is_shared_by_every_seat():
    # the deck is out and two seats have passed: every line can end in a stalemate
    result = analyse(POS / "cutthroat-deck-out-passes-p0.json", iterations=3000, seed=2)
    _check_shares(result)
    drawn = [m for m in result.moves if m.draw_rate > 0]
    assert drawn
    for m in drawn:
        assert m.seat_scores[0] >= m.draw_rate / 3 - 1e-9


def test_a_seat_whose_win_is_forced_gets_every_game():
    # p1 holds 13 points and an Ace: it wins on its turn, whatever p0 (a Queen, or a draw) does
    pos = load_position(_table([{"hand": ["QC"]}, {"hand": ["AS"], "points": ["TH", "3H"]},
                                {"hand": ["5D"], "points": ["4D"]}]))
    result = analyse(pos, iterations=2000, seed=1)
    assert {m.move.text() for m in result.moves} == {"royal QC", "draw"}
    for m in result.moves:
        assert m.seat_scores == (0.0, 1.0, 0.0)
        assert m.seat_win_rates == (0.0, 1.0, 0.0)


def test_analyse_json_and_text_report_every_seat():
    runner = CliRunner()
    out = runner.invoke(main, ["analyse", str(POS / "cutthroat-opening-p0.json"), "-n", "2000", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    for row in data["moves"]:
        assert set(row["seatScores"]) == set(row["seatWinrates"]) == {"p0", "p1", "p2"}
        assert row["seatScores"]["p0"] == row["score"]
    assert data["rootInfo"]["model"] == "maxn"
    text = runner.invoke(main, ["analyse", str(POS / "cutthroat-opening-p0.json"), "-n", "2000"])
    header = next(line for line in text.stdout.splitlines() if line.startswith("#"))
    assert header.split()[-5:] == ["p0", "p1", "p2", "principal", "variation"]
    two = runner.invoke(main, ["analyse", str(POS / "opening-p0.json"), "-n", "2000", "--json"])
    row = json.loads(two.stdout)["moves"][0]
    assert row["seatScores"]["p0"] == row["score"]
    assert row["seatScores"]["p1"] == pytest.approx(1 - row["score"], abs=2e-6)
    two_text = runner.invoke(main, ["analyse", str(POS / "opening-p0.json"), "-n", "2000"])
    assert " p1 " not in next(line for line in two_text.stdout.splitlines() if line.startswith("#"))


# a table where p2 wins on its turn (13 points and an Ace) unless someone scuttles it first;
# p1, who acts between, holds the Ten that would
THREAT = [{"hand": ["TC", "7C"]}, {"hand": ["TD", "8S"]}, {"hand": ["AH"], "points": ["9D", "4H"]}]


def test_paranoid_defends_where_max_n_trusts_the_other_opponent():
    pos = load_position(_table(THREAT))
    # a widening that lets the opponents' nodes open their replies within the budget: the
    # model decides what they choose among them (Cutthroat's default, 1,000, keeps them to
    # the greedy pick at this budget, whatever the model)
    maxn = run_search(pos, Limit(5000), 1, 1, model="maxn", widen=4.0)
    paranoid = run_search(pos, Limit(5000), 1, 1, model="paranoid", widen=4.0)
    # max-n expects p1 to stop p2 (p1 loses otherwise) and develops; paranoid expects p1 not to
    assert not maxn.best.move.text().startswith("scuttle")
    assert paranoid.best.move.text() in ("scuttle TC 9D", "scuttle TC 4H")
    by_move = {m.move.text(): m for m in paranoid.moves}
    assert by_move["draw"].score < 0.1 and by_move["draw"].seat_scores[2] > 0.9
    assert {m.move.text(): m for m in maxn.moves}["draw"].score > 0.5
    _check_shares(paranoid)


def test_two_seats_search_the_same_under_max_n_and_paranoid():
    for name in ("midgame-main-p0", "opening-p0"):
        pos = load_position(POS / f"{name}.json")
        a = run_search(pos, Limit(3000), 1, 5, model="maxn").deterministic_json()
        b = run_search(pos, Limit(3000), 1, 5, model="paranoid").deterministic_json()
        a["rootInfo"].pop("model"), b["rootInfo"].pop("model")
        assert a == b


def _replies_to_draw(model: int) -> list[int]:
    """The visits of p1's replies below p0's draw in THREAT, after 6,000 iterations."""
    pos = load_position(_table(THREAT))
    w = _Worker(seed=3, index=0, capacity=1 << 14)
    deal = (np.int64(0), np.int64(0), np.int64(0))
    w.run(pos.state.copy(), pos.rules_array, pos.actor, deal, 6000, 0.7, ROLLOUT_GREEDY, None, model)
    a = w.tree.arrays
    draw = next(c for c in w.tree.children(0) if Move.from_code(int(a["move"][c])).text() == "draw")
    return [int(a["visits"][c]) for c in w.tree.children(draw)]


def test_a_random_model_draws_the_opponents_moves_uniformly():
    # max-n piles p1's visits on its saving moves (the scuttles of p2's cards); the random model
    # draws p1's moves uniformly, like chance
    maxn = _replies_to_draw(MODEL_MAXN)
    uniform = _replies_to_draw(MODEL_RANDOM)
    assert max(maxn) > 5 * min(maxn)
    assert len(uniform) > 5 and max(uniform) < 1.5 * min(uniform)


def test_models_are_checked():
    with pytest.raises(SearchError, match="model"):
        run_search(load_position(POS / "opening-p0.json"), Limit(10), model="minimax")
    with pytest.raises(AgentError, match="model"):
        make_agent("ismcts:model=minimax")
    assert make_agent("ismcts:model=paranoid").model == "paranoid"


def test_every_node_records_the_seat_that_decided_it_through_counter_chains():
    # full information, so every node is one state: replaying a node's path from the root,
    # the seat asked before each move is the node's mover, also inside counter chains where
    # a seat other than the one whose turn it is decides
    pos = load_position(POS / "cutthroat-opening-full.json")
    w = _Worker(seed=4, index=0, capacity=1 << 15)
    deal = (np.int64(0), np.int64(0), np.int64(0))
    w.run(pos.state.copy(), pos.rules_array, pos.actor, deal, 4000, 0.7, ROLLOUT_GREEDY, None, MODEL_MAXN)
    a = w.tree.arrays
    off_turn = 0
    stack = [(0, pos.state.copy())]
    while stack:
        node, s = stack.pop()
        for c in w.tree.children(node):
            assert int(a["mover"][c]) == int(s[L.F_ACTOR])
            off_turn += int(s[L.F_ACTOR]) != int(s[L.F_TURN])
            child = s.copy()
            apply_move(child, pos.rules_array, a["move"][c])
            stack.append((c, child))
    assert off_turn > 50  # counter decisions of the seats whose turn it is not


def test_the_per_seat_table_survives_the_tree_growing():
    # a tree that starts small grows (and renumbers its nodes) many times; the root-only
    # table is by order of creation, so it ends the same as in a tree that never grew
    pos = load_position(POS / "cutthroat-opening-p0.json")
    deal = (np.int64(pos.unknown_cards), np.int64(0), np.int64(0))
    split, grown = [], []
    for capacity in (1 << 6, 1 << 16):
        w = _Worker(seed=9, index=0, capacity=capacity)
        w.run(pos.state.copy(), pos.rules_array, pos.actor, deal, 3000, 0.7, ROLLOUT_GREEDY, None, MODEL_MAXN)
        split.append(w.tree.root_seat_wins(3))
        grown.append(w.tree.capacity > capacity)
        stats = w.tree.root_stats()
        for code, wins in split[-1].items():  # the viewer's column is the node's own wins
            assert wins[pos.actor] == stats[code][1]
    assert grown == [True, False] and split[0] == split[1]


def test_partners_share_their_team_s_figures():
    # team: a seat's entry is its team's (a win by either partner, a stalemate half each)
    # (with greedy playouts the win rates too; the default's value playouts estimate scores only)
    for rollout in ("greedy", None):
        result = analyse(POS / "team-deck-out-passes-p0.json", iterations=2000, seed=2, rollout=rollout)
        assert result.seats == 4 and result.partner == 2
        for m in result.moves:
            if m.visits:
                assert m.seat_scores[0] == m.seat_scores[2] == pytest.approx(m.score)
                assert m.seat_scores[1] == m.seat_scores[3]
                assert m.seat_scores[0] + m.seat_scores[1] == pytest.approx(1.0)
                if rollout == "greedy":
                    assert m.seat_win_rates[0] + m.seat_win_rates[1] + m.draw_rate == pytest.approx(1.0)
                else:
                    assert m.seat_win_rates is None and m.draw_rate is None
