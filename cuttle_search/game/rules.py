"""Rulesets: named presets of options, packed into the small array the kernels read.

The presets follow ``RULES.md`` sections 1-2. Any preset can take single-option overrides
written ``name=value`` (``four=random``, ``nine=deck-top``, ``hand-limit=block``) or a bare
flag name (``eight-one-off``), which means ``=on``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Mapping

import numpy as np

from .errors import CuttleError, brief
from .inputs import whole_number
from ..engine import layout as L
from ..engine.state import empty_state


class RulesError(CuttleError):
    """An unknown ruleset, option or option value."""


@dataclass(frozen=True)
class Ruleset:
    """A complete set of rule options. Build one with :func:`get_ruleset`."""

    name: str
    players: int = 2
    hand_limit: str = "discard"  # discard | block | none
    hand_limit_size: int = 8
    deal_first: int = 5
    deal_other: int = 6  # the seats between the first and the dealer
    deal_dealer: int = 6
    goals: tuple[int, ...] = (21, 14, 10, 5, 0)
    four: str = "choose"  # choose | random
    nine: str = "frozen"  # frozen | unfrozen | deck-top
    nine_targets_points: bool = True
    target_any_side: bool = False
    jack_switches: bool = False
    jack_on_own: bool = False
    queens_protect_queens: bool = True
    three_takes_three: bool = False
    eight_one_off: bool = False
    ten_counters_scuttle: bool = False
    five_discards: bool = True
    five_draws: int = 3
    seven_reveals: int = 2
    action_limit: int = 1000
    pass_limit: int = 3
    teams: int = 0  # 0 every seat for itself; 2 partners opposite
    jokers: bool = False  # 54 cards: the two Jokers
    queen_stops_counters: bool = True
    queen_stops_nines: bool = False  # a seat with a Queen is no 9's target at all (a 2 may still take its Queens)
    always_playable: bool = False  # 3, 4, 5 and 7 whatever the scrap, hands and deck
    seven_private: bool = False  # a 7 reveals to its player only
    seven_scraps_each: bool = False  # a revealed Jack or Joker with no target may be scrapped on its own
    decider_wins_ties: bool = False
    freeze_until_turn_ends: bool = False
    deckout_reveals: bool = True  # every hand is visible once the deck is empty
    gift: bool = False  # a Jack or Joker names the seat it gives control to (any seat)
    response_nine: bool = False  # an opponent may answer a royal with a 9, out of turn
    scuttle: bool = True
    reshuffle: bool = False  # the scrap, shuffled, refills an empty draw pile
    four_everyone: bool = False  # a 4 makes every other seat discard 2
    counter_costs_turn: bool = False  # a 2 countered out of turn costs its player's next turn
    eight_shows_all: bool = False  # an 8 shows the other hands to every seat
    discard_singly: bool = False  # the hand-limit discard is one card a decision
    remove_ace_six: bool = False
    overrides: tuple[tuple[str, str], ...] = field(default=())

    @cached_property
    def array(self) -> np.ndarray:
        """The rules array, built once (kernels only read it; use ``to_array`` to modify)."""
        return self.to_array()

    def to_array(self) -> np.ndarray:
        """A fresh ``int64`` rules array for the kernels (layout in ``engine/layout.py``)."""
        r = np.zeros(L.RULES_SIZE, dtype=np.int64)
        r[L.R_NPLAYERS] = self.players
        r[L.R_HAND_LIMIT_STYLE] = {"none": L.HL_NONE, "discard": L.HL_DISCARD, "block": L.HL_BLOCK}[self.hand_limit]
        r[L.R_HAND_LIMIT] = self.hand_limit_size
        r[L.R_DEAL_FIRST] = self.deal_first
        r[L.R_DEAL_OTHER] = self.deal_other
        r[L.R_DEAL_DEALER] = self.deal_dealer
        for i, g in enumerate(self.goals):
            r[L.R_GOAL + i] = g
        r[L.R_FOUR_RANDOM] = self.four == "random"
        r[L.R_NINE_MODE] = {"frozen": L.NINE_FROZEN, "unfrozen": L.NINE_UNFROZEN, "deck-top": L.NINE_DECK_TOP}[self.nine]
        r[L.R_NINE_POINTS] = self.nine_targets_points
        r[L.R_TARGET_ANY_SIDE] = self.target_any_side
        r[L.R_JACK_SWITCH] = self.jack_switches
        r[L.R_JACK_OWN] = self.jack_on_own
        r[L.R_QUEENS_PROTECT_QUEENS] = self.queens_protect_queens
        r[L.R_THREE_TAKES_THREE] = self.three_takes_three
        r[L.R_EIGHT_ONE_OFF] = self.eight_one_off
        r[L.R_TEN_COUNTERS_SCUTTLE] = self.ten_counters_scuttle
        r[L.R_FIVE_DISCARD] = self.five_discards
        r[L.R_FIVE_DRAW] = self.five_draws
        r[L.R_SEVEN_REVEAL] = self.seven_reveals
        r[L.R_ACTION_LIMIT] = self.action_limit
        r[L.R_PASS_LIMIT] = self.pass_limit
        r[L.R_TEAMS] = self.teams
        r[L.R_JOKERS] = self.jokers
        r[L.R_QUEEN_STOPS_COUNTERS] = self.queen_stops_counters
        r[L.R_QUEEN_STOPS_NINES] = self.queen_stops_nines
        r[L.R_ALWAYS_PLAYABLE] = self.always_playable
        r[L.R_SEVEN_PRIVATE] = self.seven_private
        r[L.R_SEVEN_SCRAPS_EACH] = self.seven_scraps_each
        r[L.R_DECIDER_WINS_TIES] = self.decider_wins_ties
        r[L.R_FREEZE_UNTIL_TURN_ENDS] = self.freeze_until_turn_ends
        r[L.R_DECKOUT_REVEALS] = self.deckout_reveals
        r[L.R_GIFT] = self.gift
        r[L.R_RESPONSE_NINE] = self.response_nine
        r[L.R_NO_SCUTTLE] = not self.scuttle
        r[L.R_RESHUFFLE] = self.reshuffle
        r[L.R_FOUR_EVERYONE] = self.four_everyone
        r[L.R_COUNTER_COSTS_TURN] = self.counter_costs_turn
        r[L.R_EIGHT_SHOWS_ALL] = self.eight_shows_all
        r[L.R_DISCARD_SINGLY] = self.discard_singly
        r[L.R_REMOVE_ACE_SIX] = self.remove_ace_six
        return r

    @property
    def cards(self) -> int:
        """Cards in the deck before the deal."""
        return L.N_CARDS + (2 if self.jokers else 0)

    @property
    def spec(self) -> str:
        """``name`` or ``name:opt=value,...``: parses back with :func:`get_ruleset`."""
        if not self.overrides:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.overrides)

    def options(self) -> dict[str, str]:
        return dict(self.overrides)

    @property
    def exact_solvable(self) -> bool:
        """Whether the exact solver (a two-sided negamax over a perfect-information game)
        applies: two seats, and no chance left in the rules once nothing is hidden (a
        reshuffled draw pile is chance)."""
        return self.players == 2 and not self.reshuffle

    @property
    def sides(self) -> int:
        """How many sides play (the engine's ``seats.sides``): the seats, or two teams. A
        stalemate shares the game equally among them."""
        from ..engine.seats import sides

        return int(sides(empty_state(self.players), self.array))

    def side_of(self, seat: int) -> int:
        """The lowest seat of ``seat``'s side (its own number when every seat plays alone)."""
        from ..engine.seats import partner

        mate = int(partner(empty_state(self.players), self.array, seat))
        return seat if mate < 0 else min(seat, mate)

    @property
    def seat_list_form(self) -> bool:
        """Whether positions are written in the seat-list form (games of more seats, and
        every ruleset of RULES.md section 3 even with two seats), not the two-seat v1 form."""
        return self.name not in PRESETS


CUTTLE_CARDS = Ruleset(name="cuttle-cards")

PRESETS: dict[str, Ruleset] = {
    "cuttle-cards": CUTTLE_CARDS,
    "cuttle-cards-2": replace(CUTTLE_CARDS, name="cuttle-cards-2", nine="deck-top"),
    "bga-balanced": replace(CUTTLE_CARDS, name="bga-balanced", hand_limit="block", nine_targets_points=False),
    "bga-traditional": replace(
        CUTTLE_CARDS,
        name="bga-traditional",
        hand_limit="none",
        nine_targets_points=False,
        five_discards=False,
        five_draws=2,
        seven_reveals=1,
        nine="unfrozen",
        goals=(21, 14, 10, 7, 4),
    ),
    "classic": replace(
        CUTTLE_CARDS,
        name="classic",
        hand_limit="none",
        five_discards=False,
        five_draws=2,
        seven_reveals=1,
        nine="unfrozen",
        nine_targets_points=False,
        target_any_side=True,
        goals=(21, 14, 10, 7, 5),
        jack_switches=True,
        jack_on_own=True,
        three_takes_three=True,
    ),
}

# Games of more than two seats (RULES.md section 3). The engine plays them; the layers
# above it (positions, the analyser, agents, the arena) take them one ruleset at a time,
# so they are not presets yet and each command says whether it accepts them.
N_SEAT_RULESETS: dict[str, Ruleset] = {
    "cutthroat": replace(
        CUTTLE_CARDS,
        name="cutthroat",
        players=3,
        hand_limit="block",
        hand_limit_size=7,
        deal_first=5,
        deal_other=5,
        deal_dealer=5,
        goals=(14, 9, 5, 0, 0),
        pass_limit=4,
        jokers=True,
        queen_stops_counters=False,
        always_playable=True,
        seven_private=True,
        seven_scraps_each=True,
        decider_wins_ties=True,
        freeze_until_turn_ends=True,
        deckout_reveals=False,
    ),
    # RULES.md 3.2: cuttle.cards rules for two teams of partners sitting opposite
    "team": replace(
        CUTTLE_CARDS,
        name="team",
        players=4,
        teams=2,
        hand_limit="block",
        hand_limit_size=7,
        deal_first=5,
        deal_other=5,
        deal_dealer=5,
        pass_limit=5,
        jokers=True,
        seven_private=True,
        decider_wins_ties=True,
        freeze_until_turn_ends=True,
        deckout_reveals=False,
        gift=True,
        response_nine=True,
    ),
    # RULES.md 3.3: Cuttle Multiplayer v1.25, 2 to 8 seats (option players=N, 4 by default)
    "multiplayer": replace(
        CUTTLE_CARDS,
        name="multiplayer",
        players=4,
        hand_limit="discard",
        hand_limit_size=7,
        deal_first=5,
        deal_other=5,
        deal_dealer=6,
        goals=(21, 14, 10, 7, 5),
        pass_limit=5,
        nine="unfrozen",
        nine_targets_points=False,
        queens_protect_queens=False,  # a 2 may take any of a seat's Queens
        queen_stops_nines=True,  # but no 9 may aim at a Queen's seat at all (RULES.md 3.3)
        three_takes_three=True,
        five_discards=False,
        five_draws=2,
        seven_reveals=1,
        queen_stops_counters=False,
        always_playable=True,
        decider_wins_ties=True,
        deckout_reveals=False,
        scuttle=False,
        reshuffle=True,
        four_everyone=True,
        counter_costs_turn=True,
        eight_shows_all=True,
        discard_singly=True,
    ),
}
MIN_PLAYERS, MAX_PLAYERS = 2, L.MAX_PLAYERS  # the seats multiplayer's players=N takes
REMOVE_ACE_SIX_MIN_PLAYERS = 4

RULESETS: dict[str, Ruleset] = {**PRESETS, **N_SEAT_RULESETS}  # every ruleset get_ruleset knows


def game_choices() -> list[str]:
    """The games a menu offers: every ruleset by name, then multiplayer at each other seat
    count it takes (``multiplayer:players=N``)."""
    usual = RULESETS["multiplayer"].players
    return list(RULESETS) + [f"multiplayer:players={n}" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) if n != usual]

_FLAGS = {
    "queens-protect-queens": "queens_protect_queens",
    "three-takes-three": "three_takes_three",
    "eight-one-off": "eight_one_off",
    "ten-counters-scuttle": "ten_counters_scuttle",
    "remove-ace-six": "remove_ace_six",
}
_CHOICES = {
    "four": ("four", ("choose", "random")),
    "nine": ("nine", ("frozen", "unfrozen", "deck-top")),
    "hand-limit": ("hand_limit", ("discard", "block", "none")),
}
_ON = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}

OPTION_NAMES = tuple(sorted(list(_FLAGS) + list(_CHOICES) + ["players"]))


def _apply_option(rules: Ruleset, key: str, value: str) -> Ruleset:
    key = key.strip().lower()
    value = value.strip().lower()
    if key == "players":
        if rules.name != "multiplayer":
            raise RulesError(f"option players: {rules.name} is played by {rules.players} seats, always")
        n = whole_number(value, MAX_PLAYERS)
        if n is None or n < MIN_PLAYERS:
            raise RulesError(f"option players takes a number of seats from {MIN_PLAYERS} to {MAX_PLAYERS}, not {brief(value)}")
        return replace(rules, players=n, pass_limit=n + 1)
    if key in _FLAGS:
        if value not in _ON:
            raise RulesError(f"option {brief(key)} takes on or off, not {brief(value)}")
        return replace(rules, **{_FLAGS[key]: _ON[value]})  # type: ignore[arg-type]  # a flag's field is a bool
    if key in _CHOICES:
        attr, allowed = _CHOICES[key]
        if value not in allowed:
            raise RulesError(f"option {brief(key)} takes one of {', '.join(allowed)}, not {brief(value)}")
        return replace(rules, **{attr: value})  # type: ignore[arg-type]  # a choice's field is a str
    raise RulesError(f"unknown rule option {brief(key)} (known: {', '.join(OPTION_NAMES)})")


def _canonical(key: str, value: str) -> tuple[str, str]:
    key = key.strip().lower()
    value = value.strip().lower()
    if key in _FLAGS:
        value = "on" if _ON[value] else "off"
    if key == "players":
        value = str(whole_number(value, MAX_PLAYERS))  # (_apply_option has checked it)
    return key, value


def get_ruleset(spec: str = "cuttle-cards", options: Mapping[str, object] | None = None) -> Ruleset:
    """A ruleset from ``name``, ``name:opt=value,...`` and/or an options mapping."""
    if not isinstance(spec, str):
        raise RulesError(f"expected a ruleset name like 'cuttle-cards', got {brief(spec)}")
    if not spec.strip():
        raise RulesError("a ruleset name is required")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in RULESETS:
        raise RulesError(f"unknown ruleset {brief(name)} (known: {', '.join(RULESETS)})")
    pairs: list[tuple[str, str]] = []
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:  # a bare name switches a flag on; a choice or a count needs its value
            bare = key.strip().lower()
            if bare in _CHOICES:
                spelled = [f"{bare}={v}" for v in _CHOICES[bare][1]]
                raise RulesError(f"option {brief(bare)} needs a value: {', '.join(spelled[:-1])} or {spelled[-1]}")
            if bare == "players":
                raise RulesError(f"option players needs a value: players=N, a number of seats from {MIN_PLAYERS} to {MAX_PLAYERS}")
        pairs.append((key, value if eq else "on"))
    for key, value in (options or {}).items():  # type: ignore[assignment]  # untrusted: each value is checked
        if isinstance(value, bool):
            value = "on" if value else "off"
        pairs.append((str(key), str(value)))
    rules = RULESETS[name]
    seen: dict[str, str] = {}
    for key, value in pairs:
        rules = _apply_option(rules, key, value)
        k, v = _canonical(key, value)
        if seen.get(k, v) != v:  # (the spec and the options, or a spec, naming it twice)
            raise RulesError(f"option {k} is given twice, as {seen[k]} and as {v}: give it once")
        seen[k] = v
    if rules.remove_ace_six and rules.players < REMOVE_ACE_SIX_MIN_PLAYERS:
        raise RulesError(f"option remove-ace-six is for {REMOVE_ACE_SIX_MIN_PLAYERS} to {MAX_PLAYERS} seats, "
                         f"not {rules.players}")
    return replace(rules, overrides=tuple(sorted(seen.items())))


def find_ruleset(spec: str | Ruleset) -> Ruleset:
    """A ruleset from a spec (as :func:`get_ruleset`: every preset and ruleset of more
    seats, with options) or a :class:`Ruleset` as it is."""
    if isinstance(spec, Ruleset):
        return spec
    return get_ruleset(spec)
