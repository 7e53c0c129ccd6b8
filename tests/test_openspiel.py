"""The OpenSpiel adapter (skipped unless the openspiel extra is installed)."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
A = pytest.importorskip("cuttle_search.interop.openspiel")

from cuttle_search.play.arena import play_game  # noqa: E402
from cuttle_search.play.agents import AgentError, make_agent  # noqa: E402
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


def _dealt_in_order(game, cards):
    state = game.new_initial_state()
    for card in cards:
        state.apply_action(card)
    return state


def test_the_information_state_recalls_what_each_player_saw_and_when():
    """Perfect recall: the order in which p0 was dealt its cards is part of p0's
    information state (its hand now is the same), and none of p1's."""
    game = pyspiel.load_game("python_cuttle")
    cards = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]  # p0's five, then p1's six
    base = _dealt_in_order(game, cards)
    p0_order = _dealt_in_order(game, [5, 0] + cards[2:])
    p1_order = _dealt_in_order(game, cards[:5] + [30, 25] + cards[7:])
    assert base.observation_string(0) == p0_order.observation_string(0)
    assert base.information_state_string(0) != p0_order.information_state_string(0)
    assert base.information_state_string(1) == p0_order.information_state_string(1)
    assert base.information_state_string(0) == p1_order.information_state_string(0)
    assert base.information_state_string(1) != p1_order.information_state_string(1)
    # a re-deal keeps the player's own record and starts every other one afresh, alike
    twins = [base.resample_from_infostate(0, lambda x=x: x / 10) for x in range(1, 10)]
    assert {t.information_state_string(0) for t in twins} == {base.information_state_string(0)}
    assert all(t.private_record(1).startswith("resampled 11:") for t in twins)


def test_two_rulesets_with_one_spec_keep_their_own_rules():
    """A ruleset built in code may share its spec with a preset; each game's states play
    their own game's rules, whichever game was made first."""
    import dataclasses

    plain = get_ruleset("cuttle-cards")
    short = dataclasses.replace(plain, deal_first=3)
    assert short.spec == plain.spec
    for rules, first in ((plain, 5), (short, 3)):
        game = A.CuttleGame({"rules": rules})
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        assert bin(int(state.engine_state()[L.F_HAND])).count("1") == first


def test_chance_outcomes_are_refused_where_a_player_or_nobody_acts():
    game = pyspiel.load_game("python_cuttle")
    state = _dealt_in_order(game, list(range(11)))
    with pytest.raises(ValueError, match=r"chance_outcomes: not a chance node \(player 0 is to act\)"):
        state.chance_outcomes()
    with pytest.raises(ValueError, match=r"not a chance node \(the game is over\)"):
        play_random(game, 3).chance_outcomes()


def _every_field_the_string_shows_is_in_the_tensor(state, p):
    """Change each field of the engine state that the observation string reads, one at a
    time: where the string changes, the tensor must change too."""
    from cuttle_search.engine import state as S

    fields = [("game", name) for name in ("phase", "turn", "actor", "turn_count", "passes", "oneoff",
                                          "oneoff_target", "ntwos", "twos", "scuttle_card", "scuttle_target",
                                          "discards", "seven", "oneoff_player", "chain_top", "declines", "victim",
                                          "dealer", "top_seen_by", "response", "removed", "revealed", "scrap")]
    fields += [("seat", (name, q)) for name in ("hand", "public", "points", "face", "owned", "frozen", "spent")
               for q in range(state.get_game().num_players())]
    fields += [("jack", (name, j)) for name in ("on", "by", "level", "to") for j in range(4)]
    fields += [("joker", (name, k)) for name in ("on", "by", "level", "from", "to") for k in range(2)]
    text, tensor = state.observation_string(p), state.observation_tensor(p)
    for kind, key in fields:
        other = state.clone()
        s = other.engine_state()
        get, put = {"game": (S.get, S.put), "seat": (S.seat_get, S.seat_put), "jack": (S.jack_get, S.jack_put),
                    "joker": (S.joker_get, S.joker_put)}[kind]
        args = (key,) if kind == "game" else key
        old = get(s, *args)
        if key[0] == "public":  # (a public card is one of the hand's: make them all public)
            put(s, *args, S.seat_get(s, "hand", key[1]))
        else:
            put(s, *args, old + 1 if old + 1 < 54 else old - 1)
        if other.observation_string(p) != text:
            assert other.observation_tensor(p) != tensor, (kind, key)


@pytest.mark.parametrize("spec, seats", [("python_cuttle", 2), ("python_cuttle(players=3,rules=cutthroat)", 3),
                                         ("python_cuttle(players=4,rules=team)", 4)])
def test_the_observation_tensor_holds_what_the_observation_string_holds(spec, seats):
    """The tensor is the string's information as numbers: over random games, equal strings
    give equal tensors and equal tensors equal strings (so it shows no more and no less),
    and a state re-dealt from a player's information state gives that player the same one."""
    game = pyspiel.load_game(spec)
    shapes = A.tensor_pieces(seats)
    assert game.observation_tensor_shape() == [sum(int(np.prod(shape)) for _, shape in shapes)]
    by_string: dict[str, bytes] = {}
    by_tensor: dict[bytes, str] = {}
    rng = np.random.default_rng(seats)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(outcomes[rng.integers(len(outcomes))])
                continue
            for p in range(seats):
                text = state.observation_string(p)
                tensor = np.array(state.observation_tensor(p), np.float32).tobytes()
                assert by_string.setdefault(text, tensor) == tensor
                assert by_tensor.setdefault(tensor, text) == text
            if rng.random() < 0.1:
                p = int(rng.integers(seats))
                twin = state.resample_from_infostate(p, lambda: float(rng.random()))
                assert twin.observation_tensor(p) == state.observation_tensor(p)
                _every_field_the_string_shows_is_in_the_tensor(state, p)
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    assert len(by_string) > 100


def test_the_tensors_named_parts_count_seats_from_the_observer():
    game = pyspiel.load_game("python_cuttle(players=3,rules=cutthroat)")
    state = _dealt(game)
    hands = [int(state.engine_state()[L.F_HAND + q]) for q in range(3)]
    observer = game.make_py_observer()
    for p in range(3):
        observer.set_from(state, p)
        seen = observer.dict["hand_seen"]
        assert [c for c in range(54) if seen[0][c]] == [c for c in range(54) if (hands[p] >> c) & 1]
        assert not seen[1:].any()  # the others' hands are hidden at the deal
        assert list(observer.dict["hand_size"]) == [0.5, 0.5, 0.5]
        assert list(observer.dict["actor"]).index(1.0) == (0 - p) % 3  # p0 acts: seat 0 counted from p
    with pytest.raises(ValueError, match="observes for one player"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                         private_info=pyspiel.PrivateInfoType.NONE))


def test_seats_in_the_tensor_count_from_the_observer_and_every_known_deck_card_is_there():
    from cuttle_search.engine import state as S

    game = pyspiel.load_game("python_cuttle")
    state = _dealt_in_order(game, list(range(11)))
    s = state.engine_state()
    S.put(s, "chain_top", 0)  # p0's card tops the chain (as in a countering phase)
    S.put(s, "deck_known", 6)  # six cards on top known to both (more than a 7 shows)
    observer = game.make_py_observer()
    observer.set_from(state, 1)
    assert list(observer.dict["chain_top"]) == [0.0, 1.0]  # p0 is the seat after p1
    deck = S.deck_slots(s)[:S.get(s, "deck_size")]
    top = list(reversed([int(c) for c in deck]))[:6]
    seen = observer.dict["deck_top_seen"]
    assert [c for c in np.argsort(-seen) if seen[c] > 0] == top and seen[top[0]] == 1.0


def test_a_player_outside_the_game_is_refused_naming_it():
    game = pyspiel.load_game("python_cuttle")
    state = _dealt_in_order(game, list(range(11)))
    for bad in (-1, 2, True, "p0"):
        with pytest.raises(ValueError, match="player: expected a player from 0 to 1"):
            state.private_record(bad)
        with pytest.raises(ValueError, match="player: expected a player from 0 to 1"):
            game.make_py_observer().set_from(state, bad)


def test_openspiels_rl_environment_plays_on_observation_tensors():
    from open_spiel.python import rl_environment

    game = pyspiel.load_game("python_cuttle")
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION, seed=5)
    size = game.observation_tensor_size()
    assert env.observation_spec()["info_state"] == (size,)
    step, rng = env.reset(), np.random.default_rng(5)
    while not step.last():
        p = step.observations["current_player"]
        assert len(step.observations["info_state"][p]) == size
        step = env.step([rng.choice(step.observations["legal_actions"][p])])
    assert sorted(step.rewards) == [-1.0, 1.0] or step.rewards == [0.0, 0.0]


def test_openspiel_ismcts_agent_plays_legal_moves():
    bot = make_agent("openspiel-ismcts:iterations=50")
    other = make_agent("random")
    for d in range(2):
        rec = play_game(get_ruleset("cuttle-cards"), 77 + d, (bot, other), rng_seed=d)
        assert rec.status != "ongoing"
    # OpenSpiel's bot has no time budget: a time= it would ignore is refused, not taken
    with pytest.raises(AgentError, match=r"unknown parameter 'time=0.01' \(parameters: iterations, c\)"):
        make_agent("openspiel-ismcts:time=0.01")
    for few in (1,):  # one simulation failed OpenSpiel's own assertion mid-game (0 is refused as any count)
        with pytest.raises(AgentError, match="iterations must be at least 2"):
            make_agent(f"openspiel-ismcts:iterations={few}")


# ---------------------------------------------------------------- three seats (cutthroat)
from cuttle_search.engine.setup import dealt_to, deal_size  # noqa: E402
from cuttle_search.engine.table import seat_returns  # noqa: E402
from cuttle_search.game.rules import N_SEAT_RULESETS  # noqa: E402

CT = N_SEAT_RULESETS["cutthroat"]


def test_openspiel_random_simulation_three_seats():
    game = pyspiel.load_game("python_cuttle(players=3,rules=cutthroat)")
    assert game.num_players() == 3 and game.ruleset == CT
    pyspiel.random_sim_test(game, num_sims=6, serialize=False, verbose=False)


def test_the_game_takes_the_rulesets_seats_and_refuses_others():
    assert A.CuttleGame({"rules": "cutthroat"}).num_players() == 3
    assert A.CuttleGame({"rules": CT, "players": 3}).num_players() == 3
    game = pyspiel.load_game("python_cuttle", {"rules": "cutthroat"})
    assert str(game) == "python_cuttle(players=3,rules=cutthroat)" and pyspiel.load_game(str(game)).ruleset == CT
    assert pyspiel.load_game("python_cuttle").num_players() == 2
    with pytest.raises(A.OpenSpielGameError, match="players: cutthroat is played by 3 players, not 2"):
        A.CuttleGame({"rules": "cutthroat", "players": 2})
    with pytest.raises(A.OpenSpielGameError, match="players: cuttle-cards is played by 2 players, not 3"):
        A.CuttleGame({"rules": "cuttle-cards", "players": 3})
    with pytest.raises(Exception, match="unknown ruleset 'cutthroat-x'.*cutthroat"):
        A.CuttleGame({"rules": "cutthroat-x"})


def _dealt(game):
    state = game.new_initial_state()
    for k in range(int(deal_size(game.ruleset.array))):
        assert state.is_chance_node()
        state.apply_action(state.chance_outcomes()[k % 3][0])
    return state


def test_three_seat_deal_order_and_returns_come_from_the_engine():
    game = pyspiel.load_game("python_cuttle(players=3,rules=cutthroat)")
    state = game.new_initial_state()
    assert len(state.chance_outcomes()) == 54  # the Jokers are in the deck
    n = int(deal_size(CT.array))
    hands = [0, 0, 0]
    for k in range(n):
        card = state.chance_outcomes()[0][0]
        state.apply_action(card)
        hands[int(dealt_to(CT.array, k))] |= 1 << card
    s = state.engine_state()
    assert [int(s[L.F_HAND + q]) for q in range(3)] == hands and all(bin(h).count("1") == 5 for h in hands)
    assert state.current_player() == 0 and not state.is_chance_node()
    for seed in range(4):
        end = play_random(game, seed)
        out = np.zeros(L.MAX_PLAYERS)
        seat_returns(end.engine_state(), CT.array, out)
        assert end.returns() == list(out[:3]) and sum(end.returns()) == 0
        assert sorted(end.returns()) in ([-0.5, -0.5, 1.0], [0.0, 0.0, 0.0])


def test_three_seat_views_hide_the_other_hands():
    game = pyspiel.load_game("python_cuttle(players=3,rules=cutthroat)")
    state = _dealt(game)
    twins = [state.resample_from_infostate(0, lambda x=x: x / 10) for x in range(1, 10)]
    for twin in twins:
        assert twin.information_state_string(0) == state.information_state_string(0)
        assert twin.observation_string(0) == state.observation_string(0)
    for seat in (1, 2):
        assert len({t.observation_string(seat) for t in twins}) > 1  # their hands were re-dealt


def _to_private_seven(game, seed):
    """A state where a seat resolves a 7 that revealed a card to it alone, or None."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        s = state.engine_state()
        if not state.is_chance_node() and s[L.F_PHASE] == L.PH_SEVEN and s[L.F_REVEALED] and s[L.F_DECK_N] > 0:
            return state
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(outcomes[rng.integers(len(outcomes))])
        else:
            actions = state.legal_actions()
            sevens = [a for a in actions if state.action_to_string(a).startswith("one-off 7")]
            state.apply_action(sevens[0] if sevens else actions[rng.integers(len(actions))])
    return None


def test_a_private_seven_shows_its_cards_to_its_player_alone():
    game = pyspiel.load_game("python_cuttle(players=3,rules=cutthroat)")
    state = next(st for st in (_to_private_seven(game, seed) for seed in range(40)) if st is not None)
    me = state.current_player()
    twin = state.clone()
    s = twin.engine_state()
    shown = int(s[L.F_REVEALED]) & -int(s[L.F_REVEALED])
    slot = 0  # the bottom deck card: undecided, so no seat knows it
    other = int(s[L.F_DECK + slot])
    s[L.F_REVEALED] = (int(s[L.F_REVEALED]) & ~shown) | (1 << other)
    s[L.F_DECK + slot] = shown.bit_length() - 1
    for seat in range(3):
        same = twin.observation_string(seat) == state.observation_string(seat)
        assert same == (seat != me), seat
    # after the pick, the card put back on top is known to the 7's player only, and decided
    state.apply_action(state.legal_actions()[0])
    s = state.engine_state()
    if s[L.F_TOP_SEEN_BY] == me and s[L.F_DECK_KNOWN] == 0:
        top = int(s[L.F_DECK + int(s[L.F_DECK_N]) - 1])
        assert A._undecided(s) == int(s[L.F_DECK_N]) - 1
        assert f"top[{top}]" in state.observation_string(me)
        assert all("top[]" in state.observation_string(q) for q in range(3) if q != me)


def test_openspiel_ismcts_agent_plays_three_seats():
    agents = [make_agent("openspiel-ismcts:iterations=20"), make_agent("random"), make_agent("greedy")]
    rec = play_game(CT, 5, agents, rng_seed=1)
    assert rec.status != "ongoing" and rec.decisions[0] > 0


# ---------------------------------------------------------------- four to eight seats (team, multiplayer)
@pytest.mark.parametrize("game_string", [
    "python_cuttle(players=4,rules=team)",
    "python_cuttle(players=2,rules=multiplayer)",
    "python_cuttle(players=4,rules=multiplayer)",
    "python_cuttle(players=8,rules=multiplayer)",
    "python_cuttle(players=8,rules=multiplayer:remove-ace-six)",
])
def test_openspiel_random_simulation_team_and_multiplayer(game_string):
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_multiplayer_takes_its_seats_from_players_and_draws_the_shuffle_seed_by_chance():
    game = pyspiel.load_game("python_cuttle(players=6,rules=multiplayer)")
    assert game.num_players() == 6 and game.ruleset.players == 6 and game.ruleset.pass_limit == 7
    with pytest.raises(A.OpenSpielGameError, match="players: .*from 2 to 8"):
        A.CuttleGame({"rules": "multiplayer", "players": 9})
    state = game.new_initial_state()
    for _ in range(5 * 5 + 6):  # the deal: a chance event a card
        assert state.is_chance_node()
        state.apply_action(state.chance_outcomes()[0][0])
    outcomes = state.chance_outcomes()  # then the chance stream of later reshuffles
    assert state.is_chance_node() and len(outcomes) == A.SEEDS
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    state.apply_action(outcomes[7][0])
    assert not state.is_chance_node() and state.engine_state()[L.F_SHUFFLE_SEED] != 0
    two = pyspiel.load_game("python_cuttle(players=4,rules=team)").new_initial_state()
    for _ in range(20):
        two.apply_action(two.chance_outcomes()[0][0])
    assert not two.is_chance_node()  # team never reshuffles: no seed event



def test_an_action_outside_the_nodes_range_or_a_card_not_on_offer_is_refused():
    state = pyspiel.load_game("python_cuttle").new_initial_state()
    assert state.is_chance_node()
    for action in (60, 10**6, -5):
        with pytest.raises(ValueError, match=f"action {action}: not an outcome of this chance event"):
            state.clone().apply_action(action)
    state.apply_action(7)
    with pytest.raises(ValueError, match="action 7: not an outcome"):
        state.clone().apply_action(7)  # dealt already
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for action in (-2, A.NUM_ACTIONS, 10**6):  # (-1 is OpenSpiel's invalid action, refused by OpenSpiel)
        with pytest.raises(ValueError, match="outside the game's actions"):
            state.clone().apply_action(action)
        with pytest.raises(ValueError, match="outside the game's actions"):  # (-3 named another move)
            state.action_to_string(state.current_player(), action)
    with pytest.raises(ValueError, match="outside the game's chance outcomes"):
        state.action_to_string(pyspiel.PlayerId.CHANCE, A.NUM_CHANCE_OUTCOMES)
    for player in (2**40, 5, -3):  # a far one crashed the process
        with pytest.raises(ValueError, match="player: expected a player from 0 to 1"):
            state.resample_from_infostate(player)
    game = pyspiel.load_game("python_cuttle", {"rules": "cuttle-cards:four~random"})
    rng = np.random.default_rng(3)
    discards = 0
    for _ in range(200):  # games until a random discard (a 4 resolved) comes up
        four = game.new_initial_state()
        while not four.is_terminal():
            outcomes = [a for a, _ in four.chance_outcomes()] if four.is_chance_node() else []
            if outcomes and outcomes[0] >= 54 and outcomes[0] < A._SEED_BASE:  # a random discard
                discards += 1
                for wrong in (0, A._SEED_BASE):  # a card's id, a seed's id: not this event's
                    with pytest.raises(ValueError, match="not an outcome of this chance event"):
                        four.clone().apply_action(wrong)
            acts = outcomes or four.legal_actions()
            four.apply_action(acts[rng.integers(len(acts))])
        if discards:
            break
    assert discards
    for params, says in (({"rules": "nope"}, "rules: unknown ruleset 'nope'"),):
        with pytest.raises(A.OpenSpielGameError, match=says):
            pyspiel.load_game("python_cuttle", params)


def test_a_state_starts_only_from_a_position_of_its_games_rules():
    from cuttle_search.game.position import Position

    game = A.CuttleGame({"rules": "cuttle-cards"})
    for bad, got in ((Position.load("positions/cutthroat-opening-full.json"), "cutthroat"), (5, "5")):
        with pytest.raises(ValueError) as e:
            A.CuttleState(game, bad)
        assert str(e.value) == f"position: expected a position of cuttle-cards, got {got}"
    view = Position.load("positions/midgame-main-p0.json")
    state = A.CuttleState(game, view)  # a one-seat view: its hidden cards where the view put them
    assert state.current_player() == 0 and len(state.legal_actions()) == len(view.legal_codes())
