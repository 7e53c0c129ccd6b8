"""Cuttle as an OpenSpiel Python game (``python_cuttle``), and OpenSpiel's IS-MCTS as an agent.

Needs the optional extra: ``pip install -e '.[openspiel]'``. Importing this module
registers the game, with the ruleset as the game parameter ``rules``::

    import pyspiel, cuttle_search.interop.openspiel
    game = pyspiel.load_game("python_cuttle", {"rules": "cuttle-cards"})
    game = pyspiel.load_game("python_cuttle(rules=cuttle-cards:four~random)")

The game has the ruleset's seats (``players``, 0 by default, means that; a ruleset of more
seats such as ``cutthroat``, not a preset yet, is found by name)::

    game = pyspiel.load_game("python_cuttle(players=3,rules=cutthroat)")

Chance is explicit. The deal is one chance event a card, in the engine's deal order
(``setup.dealt_to``: two seats, p0's five then p1's six; cutthroat five each). The deck
order is never fixed in advance: when a player's action would take cards no seat knows from
the deck (a draw, a 5, a 7's reveal), that action waits for one chance event per such card,
each a uniformly random choice among the undecided deck cards, and then applies. A card some
seat knows on top of the deck (a public one, or the one a private 7 returned) is decided. A
``four=random`` 4 is a chance event too. Information-state and observation strings hold only
what that player may see (``engine.info``, and a private 7's cards only for its player);
the information state has perfect recall (the public moves and the player's record of what
it saw, in order); the observation tensor holds the observation string's information as
numbers (``tensor_pieces`` names its parts);
``resample_from_infostate`` re-deals the cards the player cannot see (the engine's
``determinize``); the returns are the engine's ``seat_returns``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts as os_mcts
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the OpenSpiel adapter needs the openspiel extra: pip install -e '.[openspiel]'"
    ) from e

from ..engine import layout as L
from ..engine import state as S
from ..engine.apply import apply_move
from ..engine.info import deck_known_to, determinize, hidden_revealed, sees_hand, unseen_cards, visible_in_hand
from ..engine.movegen import action_space, generate_moves, random_discard_outcomes
from ..engine.policies import ROLLOUT_RANDOM, rollout
from ..engine.rng import seed_rng
from ..engine.seats import seat_count
from ..engine.setup import BLANK_STATE, clear_state, deal_size, dealt_to, deck_cards
from ..engine.table import seat_returns
from ..game.cards import card_str
from ..game.errors import CuttleError, brief
from ..game.moves import Move
from ..game.position import Position
from ..game.rules import Ruleset, find_ruleset
from ..play.agent import Agent, AgentError
from ..game.seats import seat_name

# ---------------------------------------------------------------- the action space
# player actions: an index into _CODES (the engine's action space). Chance outcomes have
# their own ids: a card (0-53, the Jokers 52 and 53) for the deal and for cards taken from
# the deck, or 54 + the index of a set of cards for the discards of a four=random 4.
def _engine_list(fill) -> list[int]:
    out = np.zeros(L.ACTION_SPACE_SIZE, np.int64)
    return [int(c) for c in out[: fill(out)]]


_CODES = _engine_list(action_space)
_ID_OF_CODE = {c: i for i, c in enumerate(_CODES)}
_RANDOM_DISCARDS = _engine_list(random_discard_outcomes)
_CARD_OUTCOMES = 54
_ID_OF_RANDOM_DISCARD = {c: _CARD_OUTCOMES + i for i, c in enumerate(_RANDOM_DISCARDS)}
NUM_ACTIONS = len(_CODES)
# games that reshuffle their scrap (multiplayer) draw the state's chance stream, which
# orders every later reshuffle, at one more chance event after the deal: one of SEEDS seeds
SEEDS = 4096
_SEED_BASE = _CARD_OUTCOMES + len(_RANDOM_DISCARDS)
NUM_CHANCE_OUTCOMES = _SEED_BASE + SEEDS


def _stream_of(outcome: int) -> int:
    """The chance stream (``F_SHUFFLE_SEED``, never 0) that seed outcome ``outcome`` picks."""
    z = (outcome - _SEED_BASE + 1) * 0x9E3779B97F4A7C15 & (2**64 - 1)
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9 & (2**64 - 1)
    return int(np.int64(np.uint64(z | 1)))


def action_of(code: int) -> int:
    code = int(code)
    if code in _ID_OF_RANDOM_DISCARD:
        return _ID_OF_RANDOM_DISCARD[code]
    try:
        return _ID_OF_CODE[code]
    except KeyError:
        raise ValueError(f"move {Move.from_code(code).text()} has no OpenSpiel action id") from None


def code_of(action: int, chance: bool = False) -> int:
    if chance:
        return _RANDOM_DISCARDS[action - _CARD_OUTCOMES]
    return _CODES[action]


_GAME_TYPE = pyspiel.GameType(
    short_name="python_cuttle",
    long_name="Python Cuttle (cuttle_search)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=L.MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "cuttle-cards", "players": 0},
)


class OpenSpielGameError(CuttleError):
    """Game parameters the Cuttle game cannot take (a ruleset, a seat count)."""


def openspiel_rules_param(spec: str) -> str:
    """A ruleset spec in a form OpenSpiel's game strings can carry: ``=`` becomes ``~`` and
    ``,`` becomes ``+`` (``cuttle-cards:four~random+eight-one-off``)."""
    return spec.replace("=", "~").replace(",", "+")


class CuttleGame(pyspiel.Game):
    """The game; ``params["rules"]`` is a ruleset spec, written with ``~`` for ``=`` and
    ``+`` for ``,`` (plain specs are accepted too when passed as a dict)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        rules = params.get("rules", "cuttle-cards")
        if isinstance(rules, Ruleset):
            self.ruleset: Ruleset = rules
        elif not isinstance(rules, str):
            raise OpenSpielGameError(f"rules: expected a ruleset name like 'cuttle-cards', got {brief(rules)}")
        else:
            try:
                self.ruleset = find_ruleset(rules.replace("~", "=").replace("+", ","))
            except CuttleError as e:
                raise OpenSpielGameError(f"rules: {e}") from None
        players = params.get("players", 0)
        seats = self.ruleset.players
        if (self.ruleset.name == "multiplayer" and isinstance(players, int) and not isinstance(players, bool)
                and players not in (0, seats)):
            try:  # Cuttle Multiplayer takes its seat count from the game's players
                self.ruleset = find_ruleset(f"{self.ruleset.spec}{',' if ':' in self.ruleset.spec else ':'}players={players}")
            except CuttleError as e:
                raise OpenSpielGameError(f"players: {e}") from None
            seats = self.ruleset.players
        if not isinstance(players, int) or isinstance(players, bool) or players not in (0, seats):
            raise OpenSpielGameError(f"players: {self.ruleset.spec} is played by {seats} players, not {brief(players)} "
                                     f"(0 or {seats})")
        draws = 3 if self.ruleset.reshuffle else 0  # with reshuffles a card can be drawn many times
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CHANCE_OUTCOMES,
            num_players=seats,
            min_utility=-1.0,  # seat_returns: a win +1, the losers share -1 per winning seat
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.ruleset.action_limit * (1 + draws) + self.ruleset.cards
            + int(deal_size(self.ruleset.array)) + 1,
        )
        super().__init__(_GAME_TYPE, info, {"rules": openspiel_rules_param(self.ruleset.spec), "players": seats})

    def new_initial_state(self) -> "CuttleState":
        return CuttleState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "CuttleObserver":
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("python_cuttle observes for one player (private_info SINGLE_PLAYER) only")
        return CuttleObserver(perfect_recall, self.ruleset.players)


# every ruleset a state has used, by value (two rulesets may share a spec: one built in code
# with dataclasses.replace, say); a state holds its index
_RULES: list[Ruleset] = []
_RULES_INDEX: dict[Ruleset, int] = {}
_DEAL_SIZES: list[int] = []  # each ruleset's cards dealt (asked on every node: a kernel call costs)


def _rules_index(rules: Ruleset) -> int:
    """The index of ``rules`` in ``_RULES``, added on first use."""
    if rules not in _RULES_INDEX:
        _RULES_INDEX[rules] = len(_RULES)
        _RULES.append(rules)
        _DEAL_SIZES.append(int(deal_size(rules.array)))
    return _RULES_INDEX[rules]


class CuttleState(pyspiel.State):
    """An OpenSpiel state over the engine state. Deck slots below the known top hold
    cards whose order is not yet decided (``_assigned`` counts those already chosen)."""

    def __init__(self, game: CuttleGame, position: Position | None = None) -> None:
        """A new game's chance node, or ``position`` (a position of the game's ruleset), dealt.
        A one-seat view is taken with its hidden cards where the view put them (the canonical
        placement of ``Position.view_of``: a guess, not the true deal); a search from it should
        resample them (``resample_from_infostate``), as OpenSpiel's IS-MCTS does."""
        if position is not None and (not isinstance(position, Position) or position.rules != game.ruleset):
            got = position.rules.spec if isinstance(position, Position) else brief(position)
            raise ValueError(f"position: expected a position of {game.ruleset.spec}, got {got}")
        super().__init__(game)
        # pyspiel clones a Python state by deep-copying its attributes, so they stay small:
        # the ruleset is looked up by an index
        self._rules_id = _rules_index(game.ruleset)
        if position is None:
            self._s = BLANK_STATE.copy()
            clear_state(self._s, game.ruleset.players)
            r = game.ruleset.array
            if game.ruleset.remove_ace_six:  # suits matter nowhere in that game: which Ace and Six leave does not
                S.put(self._s, "removed", (1 << 0) | (1 << 20))  # change it (AC, 6C)
            every = int(deck_cards(r)) & ~S.get(self._s, "removed")
            cards = 0
            slots = S.deck_slots(self._s)
            for c in range(L.N_CARDS + 2):
                if (every >> c) & 1:
                    slots[cards] = c
                    cards += 1
            S.put(self._s, "deck_size", cards)
            self._dealt = 0
            self._seed_left = 1 if game.ruleset.reshuffle else 0
        else:
            self._s = position.state.copy()
            self._dealt = self._deal_size
            self._seed_left = 0
        self._pending = -1  # a player's move waiting for its cards
        self._picks_left = 0
        self._assigned = 0
        self._history: list[str] = []  # the public moves, as text
        # what each player has seen, in order: "step:view" each time its private view
        # changes (steps count every action, chance included, as every player can)
        self._steps = 0
        self._seen: list[list[str]] = [[] for _ in range(game.ruleset.players)]
        self._note_views()

    @property
    def _rules(self) -> Ruleset:
        return _RULES[self._rules_id]

    @property
    def _r(self) -> np.ndarray:
        return _RULES[self._rules_id].array

    # -------------------------------------------------------------- chance bookkeeping
    @property
    def _deal_size(self) -> int:
        return _DEAL_SIZES[self._rules_id]

    def _dealing(self) -> bool:
        return self._dealt < self._deal_size or self._seed_left > 0

    def _unassigned_top(self) -> int:
        """Index of the highest deck slot whose card is not decided yet."""
        return _undecided(self._s) - 1 - self._assigned

    def _open_cards(self) -> list[int]:
        top = self._unassigned_top()
        return [int(c) for c in S.deck_slots(self._s)[: top + 1]]

    def _unknown_taken(self, code: int) -> int:
        s = self._s.copy()
        before = _undecided(s)
        apply_move(s, self._r, np.int64(code))
        if S.get(s, "shuffle_seed") != S.get(self._s, "shuffle_seed"):
            return before  # the pile ran out and was reshuffled: every undecided card was taken
        return before - _undecided(s)

    # -------------------------------------------------------------- the OpenSpiel API
    def current_player(self) -> int:
        if self._dealing() or self._picks_left > 0:
            return pyspiel.PlayerId.CHANCE
        if S.get(self._s, "phase") == L.PH_OVER:
            return pyspiel.PlayerId.TERMINAL
        actor = S.get(self._s, "actor")
        return pyspiel.PlayerId.CHANCE if actor == L.ACTOR_CHANCE else actor

    def _legal_actions(self, player: int) -> list[int]:
        buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
        n = generate_moves(self._s, self._r, buf)
        return sorted(action_of(c) for c in buf[:n])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance_node():
            who = "the game is over" if self.is_terminal() else f"player {self.current_player()} is to act"
            raise ValueError(f"chance_outcomes: not a chance node ({who})")
        if self._dealt >= self._deal_size and self._seed_left > 0:
            return [(_SEED_BASE + k, 1.0 / SEEDS) for k in range(SEEDS)]
        if self._dealing() or self._picks_left > 0:
            cards = self._open_cards()
            return [(c, 1.0 / len(cards)) for c in sorted(cards)]
        buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
        n = generate_moves(self._s, self._r, buf)
        return [(a, 1.0 / n) for a in sorted(action_of(c) for c in buf[:n])]

    def _take_open_card(self, card: int, slot: int) -> None:
        """Move ``card`` (an undecided deck card) into deck slot ``slot``."""
        deck = S.deck_slots(self._s)
        i = next(i for i in range(slot + 1) if deck[i] == card)  # (on offer: _apply_action checked it)
        deck[i], deck[slot] = deck[slot], deck[i]

    def _private_view(self, player: int) -> str:
        """What ``player`` sees now that not every seat sees, compactly: the hand cards it
        sees of each seat, the deck top it knows, a 7's cards shown to it."""
        s, r = self._s, self._r
        hands = ".".join(f"{int(S.seat_get(s, 'hand', q)) & int(visible_in_hand(s, r, player, q)):x}"
                         for q in range(int(seat_count(s))))
        top = ".".join(str(c) for c in _deck_top(s, int(deck_known_to(s, player))))
        return f"{hands}/{top}/{_revealed_seen(s, r, player):x}"

    def _note_views(self) -> None:
        """Add to each player's record of what it has seen, where its view changed."""
        for player, seen in enumerate(self._seen):
            view = self._private_view(player)
            if not seen or not seen[-1].endswith(":" + view):
                seen.append(f"{self._steps}:{view}")

    def private_record(self, player: int) -> str:
        """Everything ``player`` has seen of the hidden cards, in order (the private half of
        its perfect-recall information state; the public half is the move history)."""
        return " ; ".join(self._seen[self._player(player)])

    def _player(self, player: Any) -> int:
        """``player`` when it is one of the game's players; a ValueError naming it otherwise."""
        players = self.get_game().num_players()
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < players:
            raise ValueError(f"player: expected a player from 0 to {players - 1}, got {brief(player)}")
        return int(player)

    def _apply_action(self, action: int) -> None:
        """Apply ``action`` and note what each player sees after it."""
        self._apply(action)
        self._steps += 1
        self._note_views()

    def _apply(self, action: int) -> None:
        """Apply ``action``. OpenSpiel's convention: legality is the caller's
        (``apply_action_with_legality_check`` checks it; a check here on every action would
        slow OpenSpiel's own searches, whose time the arena compares at). An id outside the
        node's range, or a chance card not on offer, is refused here all the same."""
        if self.is_chance_node():  # few and cheap to list: each must be one on offer
            if action not in {a for a, _ in self.chance_outcomes()}:
                raise ValueError(f"action {action}: not an outcome of this chance event (chance_outcomes() lists them)")
        elif not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action}: outside the game's actions, 0 to {NUM_ACTIONS - 1}")
        s = self._s
        if self._dealt >= self._deal_size and self._seed_left > 0:
            S.put(s, "shuffle_seed", _stream_of(action))
            self._seed_left = 0
            return
        if self._dealing():
            card = action
            top = self._unassigned_top()
            self._take_open_card(card, top)
            S.deck_slots(s)[top] = -1
            S.put(s, "deck_size", S.get(s, "deck_size") - 1)
            S.seat_add(s, "hand", dealt_to(self._r, self._dealt), 1 << card)
            self._dealt += 1
            return
        if self._picks_left > 0:
            self._take_open_card(action, self._unassigned_top())
            self._assigned += 1
            self._picks_left -= 1
            if self._picks_left == 0:
                apply_move(s, self._r, np.int64(self._pending))
                self._pending = -1
                self._assigned = 0
            return
        chance = S.get(s, "actor") == L.ACTOR_CHANCE
        code = code_of(action, chance)
        self._history.append(Move.from_code(code).text())
        if not chance:
            taken = self._unknown_taken(code)
            if taken > 0:
                self._pending = code
                self._picks_left = taken
                return
        apply_move(s, self._r, np.int64(code))

    def _action_to_string(self, player: int, action: int) -> str:
        most = NUM_CHANCE_OUTCOMES if player == pyspiel.PlayerId.CHANCE else NUM_ACTIONS
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < most:
            raise ValueError(f"action {action!r}: outside the game's {'chance outcomes' if most != NUM_ACTIONS else 'actions'}, "
                             f"0 to {most - 1}")
        if player == pyspiel.PlayerId.CHANCE:
            if action < _CARD_OUTCOMES:
                return f"card {card_str(action)}"
            if action >= _SEED_BASE:
                return f"shuffle seed {action - _SEED_BASE}"
            return Move.from_code(code_of(action, chance=True)).text()
        return Move.from_code(code_of(action)).text()

    def is_terminal(self) -> bool:
        return not self._dealing() and S.get(self._s, "phase") == L.PH_OVER

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.get_game().num_players()
        return _returns(self._s, self._r)

    def __str__(self) -> str:
        pending = f" pending {Move.from_code(self._pending).text()}" if self._pending >= 0 else ""
        return f"dealt {self._dealt}{pending} | " + observation_text(self, None)

    def resample_from_infostate(self, player: int, sampler=None) -> "CuttleState":
        """A state the player cannot tell apart from this one by what it sees now: the cards
        it cannot see (other seats' hidden hand cards and the undecided deck) dealt anew at
        random, by the engine's determinization. That keeps what the engine remembers (a
        card every seat knows in a hand, a deck top a seat knows) but not what the player
        once saw and sees no more: a hand seen through glasses since lost is dealt anew, so
        the re-dealt state may lie outside the information set its string names (the
        analyser's own searches deal the same way: docs/review.md, "Masking")."""
        player = self._player(player)
        seed = int((sampler() if callable(sampler) else np.random.random()) * 2**62)
        clone = self.clone()
        root = clone._s.copy()
        determinize(root, clone._s, unseen_cards(root, clone._r, player), player, seed_rng(np.uint64(seed), 0),
                    np.zeros(64, np.int64), 0, 0)
        # the other players' past views cannot be re-dealt consistently: each record starts
        # again from its new view, alike in every resampled state (the player's own is kept)
        for other in range(len(clone._seen)):
            if other != player:
                clone._seen[other] = [f"resampled {clone._steps}:{clone._private_view(other)}"]
        return clone

    def engine_state(self) -> np.ndarray:
        return self._s


def _deck_top(s: np.ndarray, known: int) -> list[int]:
    """The deck's ``known`` top cards, the top first."""
    n, deck = S.get(s, "deck_size"), S.deck_slots(s)
    return [int(deck[n - 1 - i]) for i in range(known)]


def _revealed_seen(s: np.ndarray, r: np.ndarray, player: int) -> int:
    """The cards a 7 has revealed that ``player`` sees (to its player only, in some rulesets)."""
    return S.get(s, "revealed") & ~int(hidden_revealed(s, r, player))


def _decided(s: np.ndarray) -> int:
    """How many cards on top of the deck some seat knows: their order is decided."""
    return max(int(deck_known_to(s, q)) for q in range(int(seat_count(s))))


def _undecided(s: np.ndarray) -> int:
    """How many deck cards no seat knows (their order is left to chance events)."""
    return S.get(s, "deck_size") - _decided(s)


# the game fields an observation shows, in its order (the 7's revealed cards between the two)
_FIELDS: tuple[S.GameField, ...] = ("phase", "turn", "actor", "turn_count", "passes", "oneoff", "oneoff_target",
                                    "ntwos", "twos")
_MORE_FIELDS: tuple[S.GameField, ...] = ("scuttle_card", "scuttle_target", "discards", "seven", "oneoff_player",
                                         "chain_top", "declines", "victim", "dealer", "top_seen_by", "response",
                                         "removed")


def observation_text(state: CuttleState, player: int | None) -> str:
    """What ``player`` sees (everything for ``None``), as one line of hex masks: every
    seat's hand (or its size and the cards ``player`` knows), points, royals, frozen cards;
    the Jack and Joker stacks; the scrap; the deck's size and the top cards ``player``
    knows; the pending decision (with a 7's cards only where ``player`` sees them)."""
    s = state._s
    r = state._r
    parts = []
    for q in range(int(seat_count(s))):
        hand = S.seat_get(s, "hand", q)
        if player is not None and not sees_hand(s, r, player, q):
            hand_txt = f"{bin(hand).count('1')}:{S.seat_get(s, 'public', q):x}"
        else:
            hand_txt = f"{hand:x}"
        parts.append(f"{seat_name(q)} h{hand_txt} pt{S.seat_get(s, 'points', q):x} f{S.seat_get(s, 'face', q):x} o{S.seat_get(s, 'owned', q):x} z{S.seat_get(s, 'frozen', q):x}")
        if S.seat_get(s, "spent", q):
            parts[-1] += f" c{S.seat_get(s, 'spent', q):x}"
    jacks = ",".join(f"{S.jack_get(s, 'on', j)}/{S.jack_get(s, 'by', j)}/{S.jack_get(s, 'level', j)}"
                     + (f">{S.jack_get(s, 'to', j)}" if S.jack_get(s, "to", j) != S.jack_get(s, "by", j) else "") for j in range(L.N_JACKS))
    jokers = ",".join(f"{S.joker_get(s, 'on', k)}/{S.joker_get(s, 'by', k)}/{S.joker_get(s, 'level', k)}/"
                      f"{S.joker_get(s, 'from', k)}"
                      + (f">{S.joker_get(s, 'to', k)}" if S.joker_get(s, "to", k) != S.joker_get(s, "by", k) else "")
                      for k in range(L.N_JOKERS))
    n = S.get(s, "deck_size")
    top = ",".join(str(c) for c in _deck_top(s, _decided(s) if player is None else int(deck_known_to(s, player))))
    revealed = S.get(s, "revealed") if player is None else _revealed_seen(s, r, player)
    fields = ",".join(str(S.get(s, f)) for f in _FIELDS)
    more = ",".join(str(S.get(s, f)) for f in _MORE_FIELDS)
    fields += f",{revealed},{more}"
    view = "all" if player is None else seat_name(player)
    pending = f" wait {Move.from_code(state._pending).text()}" if state._pending >= 0 else ""
    return (f"{view} | {' | '.join(parts)} | j {jacks} | x {jokers} | s{S.get(s, 'scrap'):x} | d{n} top[{top}] | "
            f"{fields}{pending}")


def _returns(s: np.ndarray, r: np.ndarray) -> list[float]:
    """Every seat's return, as the engine scores the end of a game."""
    out = np.zeros(L.MAX_PLAYERS, np.float64)
    seat_returns(s, r, out)
    return [float(x) for x in out[: int(seat_count(s))]]


# ---------------------------------------------------------------- the observation tensor
_CARDS = _CARD_OUTCOMES  # a card plane: one entry a card, the Jokers 52 and 53
_PHASES = L.PH_RESPONSE + 1
_SEAT_PLANES: tuple[S.SeatField, ...] = ("points", "face", "owned", "frozen", "spent")
_CARD_FIELDS: tuple[S.GameField, ...] = ("oneoff", "oneoff_target", "scuttle_card", "scuttle_target", "response",
                                         "seven")
_SEAT_FIELDS: tuple[S.GameField, ...] = ("turn", "oneoff_player", "chain_top", "victim", "dealer", "top_seen_by")
_COUNTS: tuple[tuple[S.GameField, float], ...] = (("passes", 10.0), ("ntwos", 10.0), ("declines", 10.0),
                                                    ("discards", 10.0), ("deck_size", 54.0), ("turn_count", 100.0))
_BITS = np.arange(_CARDS, dtype=np.int64)


def tensor_pieces(players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The observation tensor's named parts and their shapes, for a game of ``players``
    seats. Seats are counted from the observing player (0 is that player, 1 the next in
    turn order, and so on); a card plane has one entry a card (``card_str`` numbering)."""
    n = players
    return [
        ("hand_seen", (n, _CARDS)),  # each seat's hand cards the player sees (its own: all)
        ("hand_size", (n,)),  # cards in each hand, / 10
        *((f"seat_{name}", (n, _CARDS)) for name in _SEAT_PLANES),  # points, royals, ... of each seat
        ("scrap", (_CARDS,)), ("twos", (_CARDS,)), ("removed", (_CARDS,)),
        ("revealed_seen", (_CARDS,)),  # a 7's revealed cards, where the player sees them
        # the deck's top cards the player knows: the top 1, the next 53/54, and so on down
        ("deck_top_seen", (_CARDS,)),
        *((name, (_CARDS,)) for name in _CARD_FIELDS),  # the pending one-off, its target, a scuttle, ...
        *((name, (n,)) for name in _SEAT_FIELDS),
        ("actor", (n + 1,)),  # the seat to act, or chance (the last entry)
        ("phase", (_PHASES,)),
        ("counts", (len(_COUNTS),)),  # passes, 2s, declines, discards / 10, deck / 54, turns / 100
        ("jack_on", (L.N_JACKS, _CARDS)), ("jack_by", (L.N_JACKS, n)), ("jack_to", (L.N_JACKS, n)), ("jack_level", (L.N_JACKS,)),
        ("joker_on", (L.N_JOKERS, _CARDS)), ("joker_by", (L.N_JOKERS, n)), ("joker_from", (L.N_JOKERS, n)),
        ("joker_to", (L.N_JOKERS, n)), ("joker_level", (L.N_JOKERS,)),
    ]


def _one_hot(row: np.ndarray, value: int) -> None:
    if 0 <= value < len(row):
        row[value] = 1.0


def fill_observation(state: CuttleState, player: int, parts: dict[str, np.ndarray]) -> None:
    """Write what ``player`` sees of ``state`` into ``parts`` (``tensor_pieces``' views, all
    zero): the same information as its observation string, as numbers."""
    s, r = state._s, state._r
    n = int(seat_count(s))

    def rel(q: int) -> int:  # a seat counted from the player, -1 stays -1
        return (q - player) % n if 0 <= q < n else -1

    def plane(row: np.ndarray, mask: int) -> None:
        row[:] = (mask >> _BITS) & 1

    for q in range(n):
        k = rel(q)
        hand = int(S.seat_get(s, "hand", q))
        plane(parts["hand_seen"][k], hand & int(visible_in_hand(s, r, player, q)))
        parts["hand_size"][k] = bin(hand).count("1") / 10.0
        for name in _SEAT_PLANES:
            plane(parts[f"seat_{name}"][k], S.seat_get(s, name, q))
    plane(parts["scrap"], S.get(s, "scrap"))
    plane(parts["twos"], S.get(s, "twos"))
    plane(parts["removed"], S.get(s, "removed"))
    plane(parts["revealed_seen"], _revealed_seen(s, r, player))
    for i, card in enumerate(_deck_top(s, int(deck_known_to(s, player)))):
        parts["deck_top_seen"][card] = 1.0 - i / _CARDS
    for name in _CARD_FIELDS:
        _one_hot(parts[name], S.get(s, name))
    for name in _SEAT_FIELDS:
        _one_hot(parts[name], rel(S.get(s, name)))
    actor = S.get(s, "actor")
    _one_hot(parts["actor"], n if actor == L.ACTOR_CHANCE else rel(actor))
    _one_hot(parts["phase"], S.get(s, "phase"))
    parts["counts"][:] = [S.get(s, name) / scale for name, scale in _COUNTS]
    for j in range(L.N_JACKS):
        _one_hot(parts["jack_on"][j], S.jack_get(s, "on", j))
        _one_hot(parts["jack_by"][j], rel(S.jack_get(s, "by", j)))
        _one_hot(parts["jack_to"][j], rel(S.jack_get(s, "to", j)))
        parts["jack_level"][j] = S.jack_get(s, "level", j) / 4.0
    for k in range(L.N_JOKERS):
        _one_hot(parts["joker_on"][k], S.joker_get(s, "on", k))
        _one_hot(parts["joker_by"][k], rel(S.joker_get(s, "by", k)))
        _one_hot(parts["joker_from"][k], rel(S.joker_get(s, "from", k)))
        _one_hot(parts["joker_to"][k], rel(S.joker_get(s, "to", k)))
        parts["joker_level"][k] = S.joker_get(s, "level", k) / 4.0


class CuttleObserver:
    """OpenSpiel's PyObserver. Strings for every observation type; the tensor (and its
    named views in ``dict``) for the player's own observation without perfect recall
    (OpenSpiel's default observation type); a perfect-recall observer gives strings only
    (its tensor is empty)."""

    def __init__(self, perfect_recall: bool, players: int = 2) -> None:
        self.perfect_recall = perfect_recall
        pieces = [] if perfect_recall else tensor_pieces(players)
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state: CuttleState, player: int) -> None:
        player = state._player(player)
        if self.perfect_recall:
            return
        self.tensor.fill(0.0)
        fill_observation(state, player, self.dict)

    def string_from(self, state: CuttleState, player: int) -> str:
        text = observation_text(state, state._player(player))
        if self.perfect_recall:
            text += " || " + " ; ".join(state._history) + " || " + state.private_record(player)
        return text


pyspiel.register_game(_GAME_TYPE, CuttleGame)


# ---------------------------------------------------------------- the agent
class FastRolloutEvaluator(os_mcts.Evaluator):
    """OpenSpiel's random-rollout evaluation (uniform moves to the end, uniform priors),
    run by the Numba rollout kernel instead of Python state updates."""

    def __init__(self, seed: int) -> None:
        self._rng = np.array([seed & (2**63 - 1)], dtype=np.uint64)
        self._rng_py = np.random.default_rng(seed)
        self._buf = np.zeros(L.MAX_MOVES, np.int64)
        self._scratch = np.zeros(L.STATE_SIZE, np.int64)

    def evaluate(self, state: CuttleState) -> np.ndarray:
        s = state._s.copy()
        top = state._unassigned_top()
        if top > 0:  # decide the open deck order at random
            order = self._rng_py.permutation(top + 1)
            deck = S.deck_slots(s)
            deck[: top + 1] = deck[order]
        if state._pending >= 0:
            apply_move(s, state._r, np.int64(state._pending))
        if S.get(s, "phase") != L.PH_OVER:
            rollout(s, state._r, self._rng, self._buf, ROLLOUT_RANDOM, self._scratch, -1)
        return np.array(_returns(s, state._r))

    def prior(self, state: CuttleState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        actions = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(actions)) for a in actions]


class OpenSpielIsmcts(Agent):
    """OpenSpiel's IS-MCTS bot (``open_spiel.python.algorithms.ismcts``) on this game:
    the agent ``openspiel-ismcts``, registered as an entry point of ``cuttle_search.agents``
    (pyproject.toml) so the play layer finds it without importing this layer."""

    PARAMS = {"iterations": int, "c": float}  # make_agent's parameter schema (OpenSpiel's bot has no time budget)

    def __post_init__(self) -> None:
        self.iterations = int(self.params.get("iterations", 1000))
        if self.iterations < 2:  # (OpenSpiel's search asserts a visited child: one simulation visits none)
            raise AgentError(f"agent {self.spec}: iterations must be at least 2 (OpenSpiel's IS-MCTS), "
                             f"got {self.iterations}")
        self.c = float(self.params.get("c", 2.0))
        self._games: dict[str, CuttleGame] = {}

    def choose(self, game: Position, seat: int, rng: np.random.Generator) -> int:
        view = game.view_of(seat)
        codes = view.legal_codes()
        if len(codes) == 1:
            return int(codes[0])
        spec = view.rules.spec
        if spec not in self._games:
            self._games[spec] = CuttleGame({"rules": openspiel_rules_param(spec)})
        os_game = self._games[spec]
        state = CuttleState(os_game, view)
        seed = int(rng.integers(0, 2**31 - 1))
        bot = os_ismcts.ISMCTSBot(
            game=os_game,
            evaluator=FastRolloutEvaluator(seed),
            uct_c=self.c,
            max_simulations=self.iterations,
            random_state=np.random.RandomState(seed),
            allow_inconsistent_action_sets=True,
        )
        bot.set_resampler(lambda st, player: st.resample_from_infostate(player, lambda: bot.random_number()))
        return code_of(bot.step(state))
