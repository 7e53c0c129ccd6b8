"""Move application: ``apply_move`` plays one legal move on a state in place, with every
zone change, the counter chain, the one-offs' effects, the win check and the turn flow.
It trusts its input: only moves ``generate_moves`` offered may be applied.
"""

import numpy as np

from .jit import njit
from .noref import borrow
from .layout import (
    ACTOR_CHANCE,
    bit,
    F_ACTIONS,
    F_ACTOR,
    F_CHAIN_TOP,
    F_DECK,
    F_DECK_KNOWN,
    F_DECK_N,
    F_DECLINES,
    F_DISCARDS,
    F_FACE,
    F_FROZEN,
    F_HAND,
    F_JACK_BY,
    F_JACK_LEVEL,
    F_JACK_ON,
    F_JACK_TO,
    F_JOKER_BY,
    F_JOKER_FROM,
    F_JOKER_LEVEL,
    F_JOKER_ON,
    F_JOKER_TO,
    F_NPLAYERS,
    F_NTWOS,
    F_ONEOFF,
    F_ONEOFF_PLAYER,
    F_ONEOFF_TARGET,
    F_OWNED,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_PUBLIC,
    F_REMOVED,
    F_RESPONSE,
    F_REVEALED,
    F_SCRAP,
    F_SCUTTLE_CARD,
    F_SCUTTLE_TARGET,
    F_SEVEN,
    F_SHUFFLE_SEED,
    F_SPENT,
    F_STATUS,
    F_TOP_SEEN_BY,
    F_TURN,
    F_TURN_COUNT,
    F_TWO_BY,
    F_TWOS,
    F_VICTIM,
    F_WINNER,
    FROM_SEVEN,
    HL_BLOCK,
    HL_DISCARD,
    JOKER_1,
    lowest,
    move_card,
    move_mask,
    move_receiver,
    move_target,
    MT_COUNTER,
    MT_DRAW,
    MT_FORFEIT,
    MT_JACK,
    MT_JOKER,
    MT_MASK,
    MT_ONE_OFF,
    MT_PASS,
    MT_POINTS,
    MT_ROYAL,
    MT_SCUTTLE,
    MT_SEVEN_SCRAP,
    MT_TEN_COUNTER,
    NINE_DECK_TOP,
    NINE_FROZEN,
    NINE_UNFROZEN,
    NO_CARD,
    PH_COUNTER,
    PH_FIVE,
    PH_FOUR,
    PH_FOUR_RANDOM,
    PH_HAND_LIMIT,
    PH_MAIN,
    PH_OVER,
    PH_RESPONSE,
    PH_SCUTTLE_COUNTER,
    PH_SEVEN,
    PH_THREE,
    popcount,
    R_ACTION_LIMIT,
    R_COUNTER_COSTS_TURN,
    R_DECIDER_WINS_TIES,
    R_FIVE_DISCARD,
    R_FIVE_DRAW,
    R_FOUR_EVERYONE,
    R_FOUR_RANDOM,
    R_FREEZE_UNTIL_TURN_ENDS,
    R_GIFT,
    R_HAND_LIMIT,
    R_HAND_LIMIT_STYLE,
    R_JACK_OWN,
    R_JACK_SWITCH,
    R_JOKERS,
    R_NINE_MODE,
    R_PASS_LIMIT,
    R_RESHUFFLE,
    R_RESPONSE_NINE,
    R_SEVEN_PRIVATE,
    R_SEVEN_REVEAL,
    R_TEN_COUNTERS_SCUTTLE,
    RANK_ACE,
    RANK_EIGHT,
    RANK_FIVE,
    RANK_FOUR,
    RANK_JACK,
    RANK_NINE,
    RANK_SEVEN,
    RANK_SIX,
    RANK_TEN,
    RANK_THREE,
    RANK_TWO,
    ST_ONGOING,
    ST_STALEMATE_ACTIONS,
    ST_STALEMATE_PASSES,
    ST_WIN,
    TARGET_SEAT,
)
from .seats import next_seat, opponent, same_side
from .table import (
    controller_of_point,
    controller_of_target,
    face_controller,
    goal,
    jack_height,
    joker_height,
    nine_targets,
    owner_of,
    points_total,
    reshuffle_brings,
    three_pool,
    top_jack,
    top_joker,
)


@njit(cache=True)
def _deck_push_top(s, c, known):
    """Put ``c`` on top of the deck, known to every seat or to none (a private 7's card:
    the caller records its one seer). Knowledge that no longer runs from the top is
    dropped (a seat then knows less, never more)."""
    s[F_DECK + s[F_DECK_N]] = c
    s[F_DECK_N] += 1
    s[F_TOP_SEEN_BY] = -1
    if known:
        s[F_DECK_KNOWN] += 1
    else:
        s[F_DECK_KNOWN] = 0


@njit(cache=True)
def deck_pop_top(s):
    s[F_DECK_N] -= 1
    c = s[F_DECK + s[F_DECK_N]]
    s[F_DECK + s[F_DECK_N]] = -1
    was_known = s[F_DECK_KNOWN] > 0
    if was_known:
        s[F_DECK_KNOWN] -= 1
    s[F_TOP_SEEN_BY] = -1  # a privately known top card is gone
    return c, was_known


@njit(cache=True)
def shuffle_seed_next(s):
    """The next number of the state's own chance stream (``F_SHUFFLE_SEED``, a splitmix64
    sequence): games that reshuffle carry their randomness in the state, so a search
    re-seeds it where it re-deals hidden cards."""
    x = np.uint64(s[F_SHUFFLE_SEED]) + np.uint64(0x9E3779B97F4A7C15)
    s[F_SHUFFLE_SEED] = np.int64(x)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _reshuffle(s, r):
    """``R_RESHUFFLE``: the empty draw pile is refilled with the scrap, shuffled by the
    state's chance stream; no seat knows its order. Returns whether any card came back."""
    pile = reshuffle_brings(s, r)
    s[F_REMOVED] |= s[F_SCRAP] & ~pile  # (remove-ace-six)
    if pile == 0:
        s[F_SCRAP] = 0
        return False
    s[F_SCRAP] = 0
    k = 0
    while pile:
        s[F_DECK + k] = lowest(pile)
        pile &= pile - 1
        k += 1
    for i in range(k - 1, 0, -1):  # Fisher-Yates
        j = np.int64(shuffle_seed_next(s) % np.uint64(i + 1))
        tmp = s[F_DECK + i]
        s[F_DECK + i] = s[F_DECK + j]
        s[F_DECK + j] = tmp
    s[F_DECK_N] = k
    s[F_DECK_KNOWN] = 0
    s[F_TOP_SEEN_BY] = -1
    return True


@njit(cache=True)
def _draw(s, r, p, k):
    """Draw up to ``k`` cards (fewer if the deck is short or the block-style limit bites)."""
    if r[R_HAND_LIMIT_STYLE] == HL_BLOCK:
        room = r[R_HAND_LIMIT] - popcount(s[F_HAND + p])
        if room < k:
            k = room
    for _ in range(k):
        if s[F_DECK_N] == 0:
            if not (r[R_RESHUFFLE] and _reshuffle(s, r)):
                break
        c, known = deck_pop_top(s)
        s[F_HAND + p] |= bit(c)
        if known:
            s[F_PUBLIC + p] |= bit(c)


@njit(cache=True)
def _leave_hand(s, p, c):
    s[F_HAND + p] &= ~bit(c)
    s[F_PUBLIC + p] &= ~bit(c)


@njit(cache=True)
def _set_control(s, r, card):
    """Give ``card`` (a point card on the table) to whoever controls it now."""
    owner = owner_of(s, card)
    if r[R_JACK_SWITCH]:
        ctrl = owner
        if jack_height(s, card) % 2 == 1:
            ctrl = opponent(s, owner)
    else:
        j = top_jack(s, card)
        ctrl = owner if j < 0 else s[F_JACK_TO + j]
        if j >= 0 and r[R_JOKERS]:
            k = top_joker(s, 40 + j)
            if k >= 0:
                ctrl = s[F_JOKER_TO + k]
    for q in range(s[F_NPLAYERS]):
        s[F_POINTS + q] &= ~bit(card)
    s[F_POINTS + ctrl] |= bit(card)


@njit(cache=True)
def _clear_jack(s, j):
    """Jack ``j`` leaves the table: its slots go back to "none", so equal positions are
    equal arrays."""
    s[F_JACK_ON + j] = -1
    s[F_JACK_BY + j] = -1
    s[F_JACK_TO + j] = -1
    s[F_JACK_LEVEL + j] = -1


@njit(cache=True)
def _clear_joker(s, k):
    s[F_JOKER_ON + k] = -1
    s[F_JOKER_BY + k] = -1
    s[F_JOKER_TO + k] = -1
    s[F_JOKER_LEVEL + k] = -1
    s[F_JOKER_FROM + k] = -1


@njit(cache=True)
def _scrap_jokers_on(s, card):
    """Every Joker on ``card`` goes to the scrap (the card is leaving the table)."""
    for k in range(2):
        if s[F_JOKER_ON + k] == card:
            _clear_joker(s, k)
            s[F_SCRAP] |= bit(JOKER_1 + k)


@njit(cache=True)
def _play_jack(s, r, a, jack, t, to):
    """Seat ``a`` plays ``jack`` on top of point card ``t``'s stack, giving it to seat ``to``
    (``a`` itself unless ``R_GIFT`` names another)."""
    j = jack - 40
    s[F_JACK_LEVEL + j] = jack_height(s, t)
    s[F_JACK_ON + j] = t
    s[F_JACK_BY + j] = a
    s[F_JACK_TO + j] = to
    _set_control(s, r, t)


@njit(cache=True)
def attach(s, r, by, to, card, target):
    """Put Jack or Joker ``card`` of seat ``by``, giving control to seat ``to``, on top of
    ``target``'s stack, as playing it would (a position being set up, stack by stack from
    the bottom). Returns 0, or 1 when ``to`` controls the stack already and the rules do not
    let a seat take its own card, or ``to`` is not ``by`` where the rules name no receiver."""
    ctrl = controller_of_target(s, target)
    if ctrl < 0 or (to != by and not r[R_GIFT]):
        return 1
    if card >= JOKER_1:
        if ctrl == to:
            return 1
        _play_joker(s, r, by, card, target, to)
        return 0
    if ctrl == to and not r[R_JACK_OWN]:
        return 1
    _play_jack(s, r, by, card, target, to)
    return 0


@njit(cache=True)
def _play_joker(s, r, a, joker, t, to):
    """Seat ``a`` plays ``joker`` onto ``t`` (a royal or a top Jack) and gives the stack to
    seat ``to`` (``a`` itself unless ``R_GIFT`` names another)."""
    k = joker - JOKER_1
    if t >= 40 and t < 44:
        base = s[F_JACK_ON + t - 40]
        before = controller_of_point(s, base)
    else:
        base = -1
        before = face_controller(s, t)
    s[F_JOKER_LEVEL + k] = joker_height(s, t)
    s[F_JOKER_ON + k] = t
    s[F_JOKER_BY + k] = a
    s[F_JOKER_TO + k] = to
    s[F_JOKER_FROM + k] = before
    if base >= 0:
        _set_control(s, r, base)
    else:
        s[F_FACE + before] &= ~bit(t)
        s[F_FACE + to] |= bit(t)


@njit(cache=True)
def _lift_joker(s, r, joker):
    """Take a (top) Joker off its stack: control goes back to whoever held it before.
    Returns who played it."""
    k = joker - JOKER_1
    t = s[F_JOKER_ON + k]
    lvl = s[F_JOKER_LEVEL + k]
    by = s[F_JOKER_BY + k]
    held = s[F_JOKER_TO + k]
    before = s[F_JOKER_FROM + k]
    _clear_joker(s, k)
    for i in range(2):  # close the gap if it was not the top (kept general)
        if s[F_JOKER_ON + i] == t and s[F_JOKER_LEVEL + i] > lvl:
            s[F_JOKER_LEVEL + i] -= 1
    if t >= 40 and t < 44:
        _set_control(s, r, s[F_JACK_ON + t - 40])
    else:
        s[F_FACE + held] &= ~bit(t)
        s[F_FACE + before] |= bit(t)
    return by


@njit(cache=True)
def _lift_point_card(s, card):
    """Take a point card off the table: its jacks go to the scrap, it goes nowhere yet."""
    for j in range(4):
        if s[F_JACK_ON + j] == card:
            _clear_jack(s, j)
            s[F_SCRAP] |= bit(40 + j)
            _scrap_jokers_on(s, 40 + j)
    for q in range(s[F_NPLAYERS]):
        s[F_POINTS + q] &= ~bit(card)
        s[F_OWNED + q] &= ~bit(card)


@njit(cache=True)
def _lift_jack(s, r, jack):
    """Take a (top) jack off its stack; the card goes back one level. Returns who played it."""
    j = jack - 40
    card = s[F_JACK_ON + j]
    lvl = s[F_JACK_LEVEL + j]
    by = s[F_JACK_BY + j]
    _clear_jack(s, j)
    for k in range(4):  # close the gap if it was not the top (kept general)
        if s[F_JACK_ON + k] == card and s[F_JACK_LEVEL + k] > lvl:
            s[F_JACK_LEVEL + k] -= 1
    _set_control(s, r, card)
    return by


@njit(cache=True, inline="always")
def _scrap_target(s, r, t):
    """The 2's effect (and the 8's one-off): scrap a royal, glasses or top jack."""
    if t >= JOKER_1:
        _lift_joker(s, r, t)
    elif (t >> 2) == RANK_JACK:
        _lift_jack(s, r, t)
    else:
        q = face_controller(s, t)
        if q >= 0:
            s[F_FACE + q] &= ~bit(t)
        if r[R_JOKERS]:
            _scrap_jokers_on(s, t)
    s[F_SCRAP] |= bit(t)


@njit(cache=True, inline="always")
def _nine(s, r, t, answer):
    """The 9's effect: return the target to a hand (frozen or not), or to the deck top. A
    9 ``answer``ing a royal (``R_RESPONSE_NINE``) returns it to its player, never frozen."""
    rk = t >> 2
    if t >= JOKER_1:
        receiver = _lift_joker(s, r, t)
    elif rk == RANK_JACK:
        receiver = _lift_jack(s, r, t)
    elif rk <= RANK_TEN and controller_of_point(s, t) >= 0:
        receiver = controller_of_point(s, t)
        _lift_point_card(s, t)
    else:
        receiver = face_controller(s, t)
        if receiver < 0:
            return
        s[F_FACE + receiver] &= ~bit(t)
        if r[R_JOKERS]:
            _scrap_jokers_on(s, t)
    mode = r[R_NINE_MODE]
    if answer:
        mode = NINE_UNFROZEN
    if mode == NINE_DECK_TOP:
        _deck_push_top(s, t, True)
    else:
        s[F_HAND + receiver] |= bit(t)
        s[F_PUBLIC + receiver] |= bit(t)
        if mode == NINE_FROZEN:
            s[F_FROZEN + receiver] |= bit(t)  # frozen on its own, beside any card an earlier 9 froze


@njit(cache=True)
def _return_revealed(s, r, p):
    """After a 7's pick, the other revealed card goes back on top, known to every seat (or,
    with ``R_SEVEN_PRIVATE``, to the 7's player ``p`` alone), and the 7 itself goes to the
    scrap."""
    rev = s[F_REVEALED]
    private = r[R_SEVEN_PRIVATE] != 0
    while rev:
        c = lowest(rev)
        rev &= rev - 1
        _deck_push_top(s, c, not private)
        if private:
            s[F_TOP_SEEN_BY] = p
    s[F_REVEALED] = 0
    s[F_SCRAP] |= bit(s[F_SEVEN])
    s[F_SEVEN] = -1


@njit(cache=True)
def _check_win(s, r):
    """Win check for every seat. Several at their goal: the turn player wins if among them
    (the deciding seat with ``R_DECIDER_WINS_TIES``), else the first of them in turn order
    after it. Returns True if the game ended."""
    n = s[F_NPLAYERS]
    t = s[F_TURN]
    if r[R_DECIDER_WINS_TIES] and s[F_ACTOR] >= 0:
        t = s[F_ACTOR]
    q = t
    for _ in range(n):
        if points_total(s, q) >= goal(s, r, q):
            s[F_STATUS] = ST_WIN
            s[F_WINNER] = q
            s[F_PHASE] = PH_OVER
            return True
        q += 1
        if q == n:
            q = 0
    return False


@njit(cache=True)
def _pass_turn(s, r, keep):
    """The turn passes to the next seat. Where frozen cards thaw as their holder's turn
    ends, the turn's seat's thaw, but for ``keep``: the cards its own 9 returned to it in
    this turn, which stay frozen through its next turn (docs/rules.md, "What every game of
    more than two seats shares")."""
    if r[R_FREEZE_UNTIL_TURN_ENDS]:
        s[F_FROZEN + s[F_TURN]] &= keep
    t = next_seat(s, s[F_TURN])
    s[F_TURN] = t
    s[F_ACTOR] = t
    s[F_TURN_COUNT] += 1
    s[F_PHASE] = PH_MAIN


@njit(cache=True)
def _finish_action(s, r):
    """The turn's action is complete: win check, hand limit, then the next turn."""
    _finish_action_keeping(s, r, 0)


@njit(cache=True)
def _finish_action_keeping(s, r, keep):
    """``_finish_action``, where ``keep`` holds the cards the turn's own 9 has just returned
    to its player, frozen through that seat's next turn (``_pass_turn``)."""
    if _check_win(s, r):
        return
    p = s[F_TURN]
    if r[R_HAND_LIMIT_STYLE] == HL_DISCARD:
        over = popcount(s[F_HAND + p]) - r[R_HAND_LIMIT]
        if over > 0:
            if r[R_FREEZE_UNTIL_TURN_ENDS]:
                # only discards are left of the turn, where being frozen changes nothing: the
                # cards frozen before it thaw now, so what is still frozen when the turn
                # passes is what its own 9 returned (kept through the next turn)
                s[F_FROZEN + p] &= keep
            s[F_PHASE] = PH_HAND_LIMIT
            s[F_ACTOR] = p
            s[F_DISCARDS] = over
            return
    _pass_turn(s, r, keep)


@njit(cache=True)
def _clear_oneoff(s):
    s[F_ONEOFF] = -1
    s[F_ONEOFF_TARGET] = -1
    s[F_ONEOFF_PLAYER] = -1
    s[F_TWOS] = 0
    s[F_NTWOS] = 0
    s[F_CHAIN_TOP] = -1
    s[F_DECLINES] = 0


@njit(cache=True)
def _ask_victim(s, r, o):
    """Seat ``o`` is to discard 2 cards to a 4 (or all it holds, if fewer). Returns False
    when it holds none."""
    k = min(2, popcount(s[F_HAND + o]))
    if k == 0:
        return False
    s[F_VICTIM] = o
    s[F_DISCARDS] = k
    if r[R_FOUR_RANDOM]:
        s[F_PHASE] = PH_FOUR_RANDOM
        s[F_ACTOR] = ACTOR_CHANCE
    else:
        s[F_PHASE] = PH_FOUR
        s[F_ACTOR] = o
    return True


@njit(cache=True)
def _next_victim(s, r, p, after):
    """``R_FOUR_EVERYONE``: the next seat after ``after`` in turn order, before the 4's
    player ``p`` comes round again, that holds a card discards. Returns False when none is
    left."""
    q = next_seat(s, after)
    while q != p:
        if _ask_victim(s, r, q):
            return True
        q = next_seat(s, q)
    return False


@njit(cache=True)
def _settle_twos(s, r):
    """The counter chain is over: its 2s go to the scrap, except (``R_COUNTER_COSTS_TURN``)
    those played out of turn, which wait before their players (``F_SPENT``)."""
    twos = s[F_TWOS]
    if r[R_COUNTER_COSTS_TURN]:
        while twos:
            c = lowest(twos)
            twos &= twos - 1
            by = s[F_TWO_BY + (c & 3)]
            s[F_TWO_BY + (c & 3)] = -1
            if by != s[F_TURN]:
                s[F_SPENT + by] |= bit(c)
            else:
                s[F_SCRAP] |= bit(c)
    else:
        s[F_SCRAP] |= twos
    s[F_TWOS] = 0


@njit(cache=True)
def _answer_royal(s, r, card, after):
    """``R_RESPONSE_NINE``: the royal ``card`` the turn's player just put down may be sent
    back by an opponent's 9. Ask the next opponent after seat ``after``, in turn order,
    for whom ``card`` is a 9's target (Queens shield it as ever); with none left, the
    royal stands and the turn goes on."""
    p = s[F_TURN]
    q = next_seat(s, after)
    while q != p:
        if not same_side(s, r, p, q) and (nine_targets(s, r, q) >> card) & 1:
            s[F_RESPONSE] = card
            s[F_PHASE] = PH_RESPONSE
            s[F_ACTOR] = q
            return
        q = next_seat(s, q)
    s[F_RESPONSE] = -1
    s[F_PHASE] = PH_MAIN
    s[F_ACTOR] = p
    _finish_action(s, r)


@njit(cache=True)
def _royal_down(s, r, card):
    """A royal (King, Queen, glasses, Jack or Joker) is on the table: the answer window,
    where the rules have one, else the end of the action."""
    if r[R_RESPONSE_NINE]:
        _answer_royal(s, r, card, s[F_TURN])
    else:
        _finish_action(s, r)


@njit(cache=True, inline="always")
def _resolve_oneoff(s, r):
    """The chain ended with the one-off standing: apply its effect."""
    c = s[F_ONEOFF]
    t = s[F_ONEOFF_TARGET]
    p = s[F_ONEOFF_PLAYER]
    o = opponent(s, p)
    rk = c >> 2
    keep = np.int64(0)
    if rk == RANK_THREE:
        if three_pool(s, r) != 0:  # the 3 waits for its pick; the chain is over
            s[F_TWOS] = 0
            s[F_NTWOS] = 0
            s[F_CHAIN_TOP] = -1
            s[F_DECLINES] = 0
            s[F_PHASE] = PH_THREE
            s[F_ACTOR] = p
            return
        s[F_SCRAP] |= bit(c)
        _clear_oneoff(s)
        _finish_action(s, r)
        return
    _clear_oneoff(s)
    if rk == RANK_SEVEN and s[F_DECK_N] == 0 and r[R_RESHUFFLE]:
        _reshuffle(s, r)  # (the 7 itself is in no pile while it resolves)
    if rk == RANK_SEVEN and s[F_DECK_N] > 0:
        # the 7 stays out of the scrap until a revealed card is played or scrapped
        for _ in range(min(r[R_SEVEN_REVEAL], s[F_DECK_N])):
            rc, _known = deck_pop_top(s)
            s[F_REVEALED] |= bit(rc)
        s[F_SEVEN] = c
        s[F_PHASE] = PH_SEVEN
        s[F_ACTOR] = p
        return
    s[F_SCRAP] |= bit(c)
    if rk == RANK_ACE:
        for q in range(s[F_NPLAYERS]):
            x = s[F_POINTS + q]
            while x:
                pc = lowest(x)
                x &= x - 1
                _lift_point_card(s, pc)
                s[F_SCRAP] |= bit(pc)
    elif rk == RANK_TWO or rk == RANK_EIGHT:
        _scrap_target(s, r, t)
    elif rk == RANK_FOUR:
        if r[R_FOUR_EVERYONE]:
            if _next_victim(s, r, p, p):
                return
        else:
            if t >= TARGET_SEAT:
                o = t - TARGET_SEAT  # the victim the 4's player named
            if _ask_victim(s, r, o):
                return
    elif rk == RANK_FIVE:
        if r[R_FIVE_DISCARD] and s[F_HAND + p] != 0:
            s[F_PHASE] = PH_FIVE
            s[F_ACTOR] = p
            s[F_DISCARDS] = 1
            return
        # the 5 reaches the scrap once its draws are done: a reshuffle they set off does not
        # take it (docs/rules.md, "Cuttle Multiplayer")
        s[F_SCRAP] &= ~bit(c)
        _draw(s, r, p, r[R_FIVE_DRAW])
        s[F_SCRAP] |= bit(c)
    elif rk == RANK_SIX:
        for q in range(s[F_NPLAYERS]):
            s[F_SCRAP] |= s[F_FACE + q]
            s[F_FACE + q] = 0
        for j in range(4):
            if s[F_JACK_ON + j] >= 0:
                _clear_jack(s, j)
                s[F_SCRAP] |= bit(40 + j)
        if r[R_JOKERS]:
            for k in range(2):
                if s[F_JOKER_ON + k] >= 0:
                    _clear_joker(s, k)
                    s[F_SCRAP] |= bit(JOKER_1 + k)
        on_table = np.int64(0)
        for q in range(s[F_NPLAYERS]):
            on_table |= s[F_POINTS + q]
        for q in range(s[F_NPLAYERS]):
            s[F_POINTS + q] = s[F_OWNED + q] & on_table
    elif rk == RANK_NINE:
        answer = s[F_RESPONSE] >= 0
        frozen_before = s[F_FROZEN + s[F_TURN]]
        _nine(s, r, t, answer)
        keep = s[F_FROZEN + s[F_TURN]] & ~frozen_before  # (a card the turn's own 9 froze for its player)
        if answer:  # the royal is back in its player's hand: its turn ends
            s[F_RESPONSE] = -1
            s[F_ACTOR] = s[F_TURN]
    _finish_action_keeping(s, r, keep)


@njit(cache=True)
def _open_chain(s, a, c, t):
    """Seat ``a`` plays one-off ``c`` (target ``t``, or -1): it waits in no zone while the
    seats after ``a`` are asked, in turn, whether to counter."""
    s[F_ONEOFF] = c
    s[F_ONEOFF_TARGET] = t
    s[F_ONEOFF_PLAYER] = a
    s[F_TWOS] = 0
    s[F_NTWOS] = 0
    s[F_CHAIN_TOP] = a
    s[F_DECLINES] = 0
    s[F_PHASE] = PH_COUNTER
    s[F_ACTOR] = next_seat(s, a)


@njit(cache=True)
def _do_scuttle(s, c, t):
    _lift_point_card(s, t)
    s[F_SCRAP] |= bit(t) | bit(c)


@njit(cache=True)
def apply_move(s, r, m):
    """Apply a move that ``generate_moves`` produced. Unchecked, like python-chess's push."""
    s, r = borrow(s), borrow(r)  # no reference counting below (noref.py)
    a = s[F_ACTOR]
    s[F_ACTIONS] += 1
    if a >= 0 and not r[R_FREEZE_UNTIL_TURN_ENDS]:
        s[F_FROZEN + a] = 0  # a frozen card thaws once its holder has acted
    mt = m & MT_MASK
    ph = s[F_PHASE]
    if ph == PH_MAIN or ph == PH_SEVEN:
        if mt == MT_PASS:
            s[F_PASSES] += 1
            if s[F_PASSES] >= r[R_PASS_LIMIT]:
                s[F_STATUS] = ST_STALEMATE_PASSES
                s[F_PHASE] = PH_OVER
            else:
                _finish_action(s, r)  # a pass is an action: the hand limit still applies
        elif mt == MT_DRAW:
            s[F_PASSES] = 0
            _draw(s, r, a, 1)
            _finish_action(s, r)
        elif mt == MT_FORFEIT:  # the 2s this seat countered with leave; so does its turn
            s[F_PASSES] = 0
            s[F_SCRAP] |= s[F_SPENT + a]
            s[F_SPENT + a] = 0
            _finish_action(s, r)
        elif mt == MT_SEVEN_SCRAP:
            c = move_card(m)
            s[F_REVEALED] &= ~bit(c)
            s[F_SCRAP] |= bit(c)
            _return_revealed(s, r, a)
            _finish_action(s, r)
        else:
            s[F_PASSES] = 0
            c = move_card(m)
            t = move_target(m)
            if m & FROM_SEVEN:
                s[F_REVEALED] &= ~bit(c)
                _return_revealed(s, r, a)
            else:
                _leave_hand(s, a, c)
            if mt == MT_POINTS:
                s[F_POINTS + a] |= bit(c)
                s[F_OWNED + a] |= bit(c)
                _finish_action(s, r)
            elif mt == MT_SCUTTLE:
                if r[R_TEN_COUNTERS_SCUTTLE]:
                    s[F_SCUTTLE_CARD] = c
                    s[F_SCUTTLE_TARGET] = t
                    s[F_PHASE] = PH_SCUTTLE_COUNTER
                    s[F_ACTOR] = controller_of_point(s, t)
                else:
                    _do_scuttle(s, c, t)
                    _finish_action(s, r)
            elif mt == MT_ROYAL:
                s[F_FACE + a] |= bit(c)
                _royal_down(s, r, c)
            elif mt == MT_JACK:
                _play_jack(s, r, a, c, t, move_receiver(m, a))
                _royal_down(s, r, c)
            elif mt == MT_JOKER:
                _play_joker(s, r, a, c, t, move_receiver(m, a))
                _royal_down(s, r, c)
            elif mt == MT_ONE_OFF:
                _open_chain(s, a, c, -1 if t == NO_CARD else t)
    elif ph == PH_COUNTER:
        if mt == MT_COUNTER:
            c = move_card(m)
            _leave_hand(s, a, c)
            if r[R_COUNTER_COSTS_TURN]:
                s[F_TWO_BY + (c & 3)] = a
            s[F_TWOS] |= bit(c)
            s[F_NTWOS] += 1
            s[F_CHAIN_TOP] = a
            s[F_DECLINES] = 0
            s[F_ACTOR] = next_seat(s, a)
        elif s[F_DECLINES] + 2 < s[F_NPLAYERS]:
            # a decline; seats other than the anchor are still to be asked
            s[F_DECLINES] += 1
            s[F_ACTOR] = next_seat(s, a)
        else:
            _settle_twos(s, r)
            if s[F_NTWOS] % 2 == 1:
                s[F_SCRAP] |= bit(s[F_ONEOFF])
                responder = s[F_ONEOFF_PLAYER]
                _clear_oneoff(s)
                if s[F_RESPONSE] >= 0:  # an answering 9 countered: the next opponent may answer
                    _answer_royal(s, r, s[F_RESPONSE], responder)
                else:
                    _finish_action(s, r)
            else:
                _resolve_oneoff(s, r)
    elif ph == PH_THREE:
        c = move_card(m)
        s[F_SCRAP] &= ~bit(c)
        s[F_HAND + a] |= bit(c)
        s[F_PUBLIC + a] |= bit(c)
        s[F_SCRAP] |= bit(s[F_ONEOFF])
        _clear_oneoff(s)
        _finish_action(s, r)
    elif ph == PH_FOUR or ph == PH_FOUR_RANDOM:
        victim = s[F_VICTIM]
        mask = move_mask(m)
        s[F_HAND + victim] &= ~mask
        s[F_PUBLIC + victim] &= ~mask
        s[F_FROZEN + victim] &= ~mask  # a frozen card discarded is frozen no more
        s[F_SCRAP] |= mask
        s[F_DISCARDS] = 0
        s[F_VICTIM] = -1
        if not (r[R_FOUR_EVERYONE] and _next_victim(s, r, s[F_TURN], victim)):
            s[F_ACTOR] = s[F_TURN]
            _finish_action(s, r)
    elif ph == PH_RESPONSE:
        card = s[F_RESPONSE]
        if mt == MT_ONE_OFF:  # a 9 answers the royal: a one-off, open to counters
            c = move_card(m)
            _leave_hand(s, a, c)
            _open_chain(s, a, c, card)
        else:
            _answer_royal(s, r, card, a)
    elif ph == PH_FIVE:
        mask = move_mask(m)
        s[F_HAND + a] &= ~mask
        s[F_PUBLIC + a] &= ~mask
        s[F_FROZEN + a] &= ~mask
        s[F_SCRAP] |= mask
        s[F_DISCARDS] = 0
        _draw(s, r, a, r[R_FIVE_DRAW])
        _finish_action(s, r)
    elif ph == PH_HAND_LIMIT:
        mask = move_mask(m)
        s[F_HAND + a] &= ~mask
        s[F_PUBLIC + a] &= ~mask
        s[F_FROZEN + a] &= ~mask  # a frozen card discarded is frozen no more
        s[F_SCRAP] |= mask
        s[F_DISCARDS] -= popcount(mask)
        s[F_PASSES] = 0  # a discard is an action: it breaks a run of passes
        if s[F_DISCARDS] <= 0:  # (R_DISCARD_SINGLY: one card a decision until done)
            s[F_DISCARDS] = 0
            _pass_turn(s, r, s[F_FROZEN + a])  # (what is frozen here, the turn's own 9 froze)
    elif ph == PH_SCUTTLE_COUNTER:
        c = s[F_SCUTTLE_CARD]
        t = s[F_SCUTTLE_TARGET]
        s[F_SCUTTLE_CARD] = -1
        s[F_SCUTTLE_TARGET] = -1
        if mt == MT_TEN_COUNTER:
            ten = move_card(m)
            _leave_hand(s, a, ten)
            s[F_SCRAP] |= bit(ten) | bit(c)
        else:
            _do_scuttle(s, c, t)
        s[F_ACTOR] = s[F_TURN]
        _finish_action(s, r)
    if s[F_STATUS] == ST_ONGOING and s[F_ACTIONS] >= r[R_ACTION_LIMIT]:
        s[F_STATUS] = ST_STALEMATE_ACTIONS
        s[F_PHASE] = PH_OVER
