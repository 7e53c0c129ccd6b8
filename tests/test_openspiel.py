"""The OpenSpiel adapter (skipped unless the openspiel extra is installed)."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
A = pytest.importorskip("cuttle_search.interop.openspiel")

from cuttle_search.play.arena import play_game  # noqa: E402
from cuttle_search.play.agents import make_agent  # noqa: E402
from cuttle_search.game.rules import get_ruleset  # noqa: E402
from cuttle_search.engine import layout as L  # noqa: E402


@pytest.mark.parametrize(
    "rules", ["cuttle-cards", "cuttle-cards:four~random+ten-counters-scuttle", "bga-balanced", "bga-traditional", "classic", "cuttle-cards-2"]
)
def test_openspiel_random_simulation(rules):
    game = pyspiel.load_game("python_cuttle", {"rules": rules})
    pyspiel.random_sim_test(game, num_sims=15, serialize=False, verbose=False)


def test_game_strings_carry_rule_options():
    game = pyspiel.load_game("python_cuttle(rules=cuttle-cards:four~random+eight-one-off)")
    assert game.ruleset.four == "random" and game.ruleset.eight_one_off
    assert pyspiel.load_game(str(game)).ruleset == game.ruleset


def play_random(game, seed):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(outcomes[rng.integers(len(outcomes))])
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    return state


def test_deal_is_chance_and_the_returns_are_zero_sum():
    game = pyspiel.load_game("python_cuttle")
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 52
    for _ in range(11):
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0
    s = state.engine_state()
    assert bin(int(s[L.F_HAND])).count("1") == 5 and bin(int(s[L.F_HAND + 1])).count("1") == 6
    for seed in range(5):
        end = play_random(game, seed)
        assert sum(end.returns()) == 0


def test_views_hide_what_the_player_cannot_see():
    """Two states that differ only in p1's hidden cards look the same to p0."""
    game = pyspiel.load_game("python_cuttle")
    state = game.new_initial_state()
    for k in range(11):
        state.apply_action(state.chance_outcomes()[k][0])
    twin = state.resample_from_infostate(0, lambda: 0.37)
    assert twin.information_state_string(0) == state.information_state_string(0)
    assert twin.observation_string(0) == state.observation_string(0)
    assert twin.engine_state()[L.F_HAND + 0] == state.engine_state()[L.F_HAND + 0]
    others = {state.resample_from_infostate(0, lambda x=x: x / 10).information_state_string(1) for x in range(10)}
    assert len(others) > 1  # p1's own view does change: p1's hand was re-dealt


def test_openspiel_ismcts_agent_plays_legal_moves():
    bot = make_agent("openspiel-ismcts:iterations=50")
    other = make_agent("random")
    for d in range(2):
        rec = play_game(get_ruleset("cuttle-cards"), 77 + d, (bot, other), rng_seed=d)
        assert rec.status != "ongoing"
