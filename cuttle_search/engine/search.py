"""Numba kernels of the information-set MCTS (single observer, Cowling, Powley and
Whitehouse 2012).

One tree of the viewer's information sets, stored as flat arrays (a ``Tree``, see
``cuttle_search.search.tree``), one entry per node; a node is reached by one move from its
parent. Every iteration draws a fresh determinization of the root (the cards the viewer
cannot see dealt at random into the slots they could be in, narrowed by an inference
when the caller has one), then selects with UCB over the moves legal in that
determinization, using availability counts, expands one node, rolls out to the end of
the game and backs up the result. Below the root, a move that
wins on the spot (points, a King or a Jack that meets the goal) is always taken when it is
legal: a "decisive move", true in every determinization, which lets a losing line read as
lost from its first visits.

Node fields (one array each, indexed by node)::

    move      int64   the move that leads here from the parent
    parent    int32
    mover     int8    seat that chose the move (-1 for a chance outcome)
    visits    int32
    avail     int32   iterations in which the move was legal when the parent was visited
    wins      int32   rollouts the mover won
    draws     int32   rollouts that ended in a stalemate
    first     int32   first child, or -1
    sibling   int32   next sibling, or -1

``meta`` holds [nodes in use, iterations done]. A kernel call stops early when the
arrays are nearly full; the caller grows them and calls again, and the search goes on
exactly as if nothing had happened.
"""

import numpy as np
from .jit import njit

from .kernels import (
    ACTOR_CHANCE,
    EIGHTS,
    F_ACTIONS,
    F_ACTOR,
    F_DECK,
    F_DECK_KNOWN,
    F_DECK_N,
    F_FACE,
    F_HAND,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_STATUS,
    F_WINNER,
    FROM_SEVEN,
    KINGS,
    MT_DRAW,
    MT_JACK,
    MT_MASK,
    MT_ONE_OFF,
    MT_PASS,
    MT_POINTS,
    MT_RESOLVE,
    MT_ROYAL,
    MT_SCUTTLE,
    MT_SEVEN_SCRAP,
    NO_CARD,
    PH_COUNTER,
    PH_MAIN,
    PH_OVER,
    PH_SCUTTLE_COUNTER,
    PH_SEVEN,
    QUEENS,
    R_ACTION_LIMIT,
    R_JACK_SWITCH,
    R_PASS_LIMIT,
    R_TEN_COUNTERS_SCUTTLE,
    RANK_KING,
    RANK_QUEEN,
    ST_WIN,
    apply_move,
    bit,
    controller_of_point,
    generate_moves,
    goal,
    goal_with_kings,
    jack_height,
    lowest,
    make_move,
    move_card,
    move_target,
    other,
    owner_of,
    points_total,
    popcount,
    rng_below,
    rng_next,
)

MAX_PATH = 2100  # longer than any game (the 1,000-action limit) plus the root
ROLLOUT_RANDOM = 0
ROLLOUT_HEURISTIC = 1
ROLLOUT_GREEDY = 2
GREEDY_EPSILON_QUARTERS = 1  # a greedy rollout plays a uniform move this many quarters of the time

META_NODES = 0
META_ITERATIONS = 1


@njit(cache=True)
def _shuffle_into(cards, x, rng):
    """List the cards of mask ``x`` into ``cards`` in uniformly random order."""
    k = 0
    while x:
        cards[k] = lowest(x)
        x &= x - 1
        k += 1
    for i in range(k - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@njit(cache=True)
def determinize(root, s, unknown, viewer, rng, cards, excluded, fresh):
    """Copy ``root`` into ``s`` and deal the cards of ``unknown`` (the viewer's unseen
    cards) uniformly into the slots they may occupy: the opponent's unknown hand cards
    and the deck below its known top. Everything the viewer knows stays where it is.

    ``excluded`` is an inference: cards the opponent does not hold, except among its
    ``fresh`` cards drawn since the inference was made. The deal is then uniform given
    that: all but ``fresh`` unknown hand cards come from outside ``excluded``. An
    inference that cannot hold (too few cards outside it) is ignored."""
    s[:] = root
    if unknown == 0:
        return
    o = other(root, viewer)
    in_hand = popcount(root[F_HAND + o] & unknown)
    hand = root[F_HAND + o] & ~unknown
    hidden_deck = root[F_DECK_N] - root[F_DECK_KNOWN]
    held = in_hand - fresh  # hand slots the inference speaks for
    ex = excluded & unknown
    if ex != 0 and held > 0 and popcount(unknown & ~ex) >= held:
        _shuffle_into(cards, unknown & ~ex, rng)
        for i in range(held):
            hand |= bit(cards[i])
        _shuffle_into(cards, unknown & ~hand, rng)
        for i in range(fresh):
            hand |= bit(cards[i])
        s[F_HAND + o] = hand
        for i in range(hidden_deck):
            s[F_DECK + i] = cards[fresh + i]
        return
    _shuffle_into(cards, unknown, rng)
    for i in range(in_hand):
        hand |= bit(cards[i])
    s[F_HAND + o] = hand
    for i in range(hidden_deck):
        s[F_DECK + i] = cards[in_hand + i]


@njit(cache=True)
def _wins_now(s, r, p, m):
    """Whether main-phase move ``m`` of seat ``p`` meets p's goal at once (cheap test)."""
    mt = m & MT_MASK
    c = move_card(m)
    pts = points_total(s, p)
    if mt == MT_POINTS:
        return pts + (c >> 2) + 1 >= goal(s, r, p)
    if mt == MT_ROYAL and (c >> 2) == 12:
        return pts >= goal_with_kings(r, popcount(s[F_FACE + p] & KINGS) + 1)
    if mt == MT_JACK:
        t = move_target(m)
        if (s[F_POINTS + p] >> t) & 1:
            return False
        return pts + (t >> 2) + 1 >= goal(s, r, p)
    return False


@njit(cache=True)
def _first_win(s, r, p, buf, n):
    """The index of the first of the ``n`` moves in ``buf`` that meets p's goal at once, or -1."""
    for i in range(n):
        if _wins_now(s, r, p, buf[i]):
            return i
    return -1


@njit(cache=True)
def winning_cards(s, r, p, candidates, t, buf):
    """The cards of ``candidates`` with which seat ``p``, deciding in the main phase of
    ``s``, could win on the spot (points, a King or a Jack that meets the goal), had it
    held them. ``t`` is a state-sized scratch array; only public fields are read, so the
    candidates may be cards p's opponent cannot see."""
    out = 0
    base = s[F_HAND + p] & ~candidates
    x = candidates
    while x:
        c = lowest(x)
        x &= x - 1
        t[:] = s
        t[F_HAND + p] = base | bit(c)
        n = generate_moves(t, r, buf)
        for i in range(n):
            if move_card(buf[i]) == c and _wins_now(t, r, p, buf[i]):
                out |= bit(c)
                break
    return out


@njit(cache=True)
def _heuristic_pick(s, r, buf, n, rng):
    """The heuristic rollout policy in a main or 7 decision with no win on the spot: when
    the opponent is within reach of their goal, scuttle or steal their biggest card;
    otherwise prefer developing plays (points, royals, scuttles, jacks) to drawing half
    of the time."""
    p = s[F_ACTOR]
    o = other(s, p)
    opp_gap = goal(s, r, o) - points_total(s, o)
    if opp_gap <= 10:
        best = -1
        best_t = -1
        for i in range(n):
            mt = buf[i] & MT_MASK
            if mt == MT_SCUTTLE or mt == MT_JACK:
                t = move_target(buf[i])
                if (s[F_POINTS + o] >> t) & 1 and t > best_t:
                    best_t = t
                    best = i
        if best >= 0:
            return buf[best]
    if rng_below(rng, 2) == 0:
        k = 0
        for i in range(n):
            mt = buf[i] & MT_MASK
            if mt == MT_POINTS or mt == MT_ROYAL or mt == MT_SCUTTLE or mt == MT_JACK:
                k += 1
        if k > 0:
            pick = rng_below(rng, k)
            for i in range(n):
                mt = buf[i] & MT_MASK
                if mt == MT_POINTS or mt == MT_ROYAL or mt == MT_SCUTTLE or mt == MT_JACK:
                    if pick == 0:
                        return buf[i]
                    pick -= 1
    return buf[rng_below(rng, n)]


@njit(cache=True)
def _standing(pts, goal_pts, kings, queens, eights, hand):
    """The material formula on counts: the one place it is written, so that scoring a move
    from the masks and scoring the state after applying it give the same bits."""
    pts = float(pts)
    gap = goal_pts - pts
    return pts - 0.5 * gap + 3.0 * kings + 2.0 * queens + 1.0 * eights + 0.4 * hand


@njit(cache=True)
def material(s, r, q):
    """One side's standing, as the ``greedy`` agent and the greedy rollouts judge it:
    points, less half the distance to the goal, Kings 3, Queens 2, glasses 1, and 0.4 a
    card in hand."""
    face = s[F_FACE + q]
    return _standing(points_total(s, q), goal(s, r, q), popcount(face & KINGS), popcount(face & QUEENS),
                     popcount(face & EIGHTS), popcount(s[F_HAND + q]))


@njit(cache=True)
def _quick_balance(s, r, m, p, o, pts_p, pts_o):
    """``material(p) - material(o)`` after move ``m`` of ``p`` and the opponent's declines,
    worked out from the masks for a draw, a pass, points, a royal, a scuttle, a jack or a
    7's scrap that does not win for ``p`` (the rollout takes any win first): 0.0 when the
    move ends the game in a stalemate, -1e17 when it hands the opponent the game, else
    exactly what applying the move on a copy would score."""
    mt = m & MT_MASK
    plies = 2 if (mt == MT_SCUTTLE and r[R_TEN_COUNTERS_SCUTTLE]) else 1  # a scuttle block declined
    if s[F_ACTIONS] + plies >= r[R_ACTION_LIMIT]:
        return 0.0
    if mt == MT_PASS and s[F_PASSES] + 1 >= r[R_PASS_LIMIT]:
        return 0.0
    face_p = s[F_FACE + p]
    kings = popcount(face_p & KINGS)
    queens = popcount(face_p & QUEENS)
    eights = popcount(face_p & EIGHTS)
    hand = popcount(s[F_HAND + p])
    if mt != MT_PASS and mt != MT_DRAW and mt != MT_SEVEN_SCRAP and not (m & FROM_SEVEN):
        hand -= 1  # the card leaves the hand (a 7's card comes from the reveal)
    c = move_card(m)
    if mt == MT_DRAW:
        hand += 1
    elif mt == MT_POINTS:
        pts_p += (c >> 2) + 1
    elif mt == MT_ROYAL:
        rk = c >> 2
        if rk == RANK_KING:
            kings += 1
        elif rk == RANK_QUEEN:
            queens += 1
        else:
            eights += 1
    elif mt == MT_SCUTTLE:
        pts_o -= (move_target(m) >> 2) + 1
    elif mt == MT_JACK:
        t = move_target(m)
        before = controller_of_point(s, t)
        if r[R_JACK_SWITCH]:
            owner = owner_of(s, t)
            after = owner if (jack_height(s, t) + 1) % 2 == 0 else other(s, owner)
        else:
            after = p
        value = (t >> 2) + 1
        if before != after:
            if before == p:
                pts_p -= value
            else:
                pts_o -= value
            if after == p:
                pts_p += value
            else:
                pts_o += value
    face_o = s[F_FACE + o]
    goal_o = goal(s, r, o)
    if pts_o >= goal_o:  # a classic jack on one's own card can hand the opponent its goal
        return -1e17
    mine = _standing(pts_p, goal_with_kings(r, kings), kings, queens, eights, hand)
    theirs = _standing(pts_o, goal_o, popcount(face_o & KINGS), popcount(face_o & QUEENS),
                       popcount(face_o & EIGHTS), popcount(s[F_HAND + o]))
    return mine - theirs


@njit(cache=True)
def apply_unopposed(s, r, m):
    """Apply move ``m`` of the seat to act, then let the opponent decline every counter or
    block it opens: a one-off or a scuttle judged as if it goes through."""
    o = other(s, s[F_ACTOR])
    apply_move(s, r, m)
    resolve = make_move(MT_RESOLVE, NO_CARD, NO_CARD)
    while (s[F_PHASE] == PH_COUNTER or s[F_PHASE] == PH_SCUTTLE_COUNTER) and s[F_ACTOR] == o:
        apply_move(s, r, resolve)


@njit(cache=True)
def _keep_best(v, i, best_val, best, ties, rng):
    """One step of an argmax with ties broken uniformly at random (reservoir sampling):
    the new (best value, best index, number of tied bests)."""
    if v > best_val + 1e-9:
        return v, i, 1
    if v > best_val - 1e-9:
        ties += 1
        if rng_below(rng, ties) == 0:
            best = i
    return best_val, best, ties


@njit(cache=True)
def _greedy_pick(s, r, buf, n, rng, scratch):
    """The one-ply greedy rollout policy in a main or 7 decision with no win on the spot:
    three times in four, try every move on a copy (a one-off as if the opponent lets it
    resolve) and keep the best material balance, and else play a uniform move."""
    p = s[F_ACTOR]
    o = other(s, p)
    if rng_below(rng, 4) < GREEDY_EPSILON_QUARTERS:
        return buf[rng_below(rng, n)]
    best = 0
    best_val = -1e18
    ties = 0
    pts_p = points_total(s, p)
    pts_o = points_total(s, o)
    for i in range(n):
        if buf[i] & MT_MASK != MT_ONE_OFF:  # scored from the masks
            v = _quick_balance(s, r, buf[i], p, o, pts_p, pts_o)
        else:  # a one-off's effects are many: apply it on a copy
            scratch[:] = s
            apply_unopposed(scratch, r, buf[i])
            if scratch[F_PHASE] == PH_OVER:
                if scratch[F_STATUS] == ST_WIN and scratch[F_WINNER] == p:
                    return buf[i]
                v = -1e17 if scratch[F_STATUS] == ST_WIN else 0.0
            else:
                v = material(scratch, r, p) - material(scratch, r, o)
        best_val, best, ties = _keep_best(v, i, best_val, best, ties, rng)
    return buf[best]


@njit(cache=True)
def rollout(s, r, rng, buf, policy, scratch):
    """Play to the end with the chosen policy; return the number of plies. ``scratch`` is
    a state-sized array the greedy policy tries moves on."""
    plies = 0
    while s[F_PHASE] != PH_OVER:
        n = generate_moves(s, r, buf)
        apply_move(s, r, policy_pick(s, r, buf, n, rng, policy, scratch))
        plies += 1
    return plies


@njit(cache=True)
def policy_pick(s, r, buf, n, rng, policy, scratch):
    """The move the rollout policy ``policy`` plays among the ``n`` moves in ``buf``. Every
    policy plays a uniform move outside a main or 7 decision; inside one, the heuristic
    and greedy policies take a win on the spot before they weigh anything else."""
    ph = s[F_PHASE]
    forced = policy == ROLLOUT_GREEDY and n == 1  # greedy does not weigh a lone move
    if policy == ROLLOUT_RANDOM or (ph != PH_MAIN and ph != PH_SEVEN) or forced:
        return buf[rng_below(rng, n)]
    win = _first_win(s, r, s[F_ACTOR], buf, n)
    if win >= 0:
        return buf[win]
    if policy == ROLLOUT_HEURISTIC:
        return _heuristic_pick(s, r, buf, n, rng)
    return _greedy_pick(s, r, buf, n, rng, scratch)


@njit(cache=True)
def _new_node(move, parent, mover, t_move, t_parent, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, meta):
    k = meta[META_NODES]
    meta[META_NODES] = k + 1
    t_move[k] = move
    t_parent[k] = parent
    t_mover[k] = mover
    t_visits[k] = 0
    t_avail[k] = 1
    t_wins[k] = 0
    t_draws[k] = 0
    t_first[k] = -1
    t_sibling[k] = t_first[parent]
    t_first[parent] = k
    return k


ROOT_ALL = 0
ROOT_ONLY = 1
ROOT_AVOID = 2


@njit(nogil=True, cache=True)
def _filter_moves(buf, n, listed, keep_listed):
    """Keep, in order, the first ``n`` moves of ``buf`` that are (or, with ``keep_listed``
    false, are not) in ``listed``; return how many remain."""
    k = 0
    for i in range(n):
        found = False
        for j in range(listed.shape[0]):
            if buf[i] == listed[j]:
                found = True
                break
        if found == keep_listed:
            buf[k] = buf[i]
            k += 1
    return k


@njit(nogil=True, cache=True)
def ismcts_iterate(
    root, r, viewer, unknown, excluded, fresh, iterations, rng, exploration, policy,
    t_move, t_parent, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, t_proven, meta,
    s, buf, seen, path, cards, scratch, root_moves, root_mode, solver,
):
    """Run up to ``iterations`` ISMCTS iterations on the tree; return how many ran (fewer
    when the node arrays are nearly full). Node 0 is the root. ``root_mode`` restricts the
    viewer's moves at the root: ROOT_ALL (every legal move), ROOT_ONLY (only those in
    ``root_moves``) or ROOT_AVOID (all but those); the caller ensures one remains.

    When nothing is hidden (``unknown == 0``) and ``solver`` is 1, every node is one state and the MCTS-Solver
    (Winands, Bjornsson and Saito 2008) runs on top: ``t_proven[k]`` is 1 when the state
    after move ``k`` is a proven win for its mover, -1 a proven loss, 0 unknown (draws and
    chance are not proven). A move that ends the game is proven when it is made; a node
    with a child proven to win for its actor is proven won, one whose every legal move is
    proven lost is proven lost (found as selection passes through). Selection never picks
    a proven-losing child while another is left, and a proven-winning child ends the
    selection: the iteration scores that result without a rollout. With hidden cards none
    of this runs and the search is exactly the plain ISMCTS."""
    cap = t_move.shape[0]
    done = 0
    solver_on = unknown == 0 and solver != 0
    while done < iterations:
        if meta[META_NODES] + 2 > cap:
            break
        determinize(root, s, unknown, viewer, rng, cards, excluded, fresh)
        node = 0
        depth = 0
        path[0] = 0
        forced = -1  # with the solver: the winner of a proven node where the selection stopped
        while s[F_PHASE] != PH_OVER:
            n = generate_moves(s, r, buf)
            if depth == 0 and root_mode != ROOT_ALL:
                n = _filter_moves(buf, n, root_moves, root_mode == ROOT_ONLY)
            actor = s[F_ACTOR]
            if actor == ACTOR_CHANCE:
                m = buf[rng_below(rng, n)]
                c = t_first[node]
                while c >= 0 and t_move[c] != m:
                    c = t_sibling[c]
                apply_move(s, r, m)
                if c < 0:
                    c = _new_node(m, node, -1, t_move, t_parent, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, meta)
                    t_proven[c] = 0
                    depth += 1
                    path[depth] = c
                    break
                depth += 1
                path[depth] = c
                node = c
                continue
            # decisive moves: below the root, a move that wins on the spot is always taken
            # (the root keeps estimating every move of the viewer)
            decisive = _first_win(s, r, actor, buf, n) if depth > 0 else -1
            for i in range(n):
                seen[i] = False
            best = -1
            best_val = -1.0
            lost = 0  # children proven lost for the actor (solver only)
            c = t_first[node]
            while c >= 0:
                mv = t_move[c]
                for i in range(n):
                    if buf[i] == mv:
                        seen[i] = True
                        t_avail[c] += 1
                        v = t_visits[c]
                        val = (t_wins[c] + 0.5 * t_draws[c]) / v + exploration * np.sqrt(np.log(t_avail[c]) / v)
                        if decisive >= 0:
                            val = 1.0 if i == decisive else -1.0
                        if solver_on and t_proven[c] != 0:
                            if t_proven[c] > 0:
                                val = 1e9  # a proven win is always the pick
                            else:
                                val = -1e9 + t_visits[c]  # never, unless every move is lost
                                lost += 1
                        if val > best_val:
                            best_val = val
                            best = c
                        break
                c = t_sibling[c]
            if decisive >= 0:  # no other move is a candidate, tried or not
                for i in range(n):
                    if i != decisive:
                        seen[i] = True
            untried = 0
            for i in range(n):
                if not seen[i]:
                    untried += 1
            if solver_on and best >= 0 and (t_proven[best] > 0 or (untried == 0 and lost == n)):
                # the node is proven: won through ``best``, or lost whatever the actor plays
                winner = actor if t_proven[best] > 0 else other(s, actor)
                if node > 0 and t_mover[node] >= 0:
                    t_proven[node] = 1 if t_mover[node] == winner else -1
                apply_move(s, r, t_move[best])
                depth += 1
                path[depth] = best
                forced = winner
                break
            if untried > 0:
                m = buf[0]
                pick = rng_below(rng, untried)
                for i in range(n):
                    if not seen[i]:
                        if pick == 0:
                            m = buf[i]
                            break
                        pick -= 1
                apply_move(s, r, m)
                c = _new_node(m, node, actor, t_move, t_parent, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, meta)
                t_proven[c] = 0
                if solver_on and s[F_PHASE] == PH_OVER and s[F_STATUS] == ST_WIN:
                    t_proven[c] = 1 if s[F_WINNER] == actor else -1
                depth += 1
                path[depth] = c
                break
            apply_move(s, r, t_move[best])
            depth += 1
            path[depth] = best
            node = best
        if forced >= 0:
            won = True
            winner = forced
        else:
            rollout(s, r, rng, buf, policy, scratch)
            won = s[F_STATUS] == ST_WIN
            winner = s[F_WINNER]
        t_visits[0] += 1
        for d in range(1, depth + 1):
            k = path[d]
            t_visits[k] += 1
            if won:
                if t_mover[k] == winner:
                    t_wins[k] += 1
            else:
                t_draws[k] += 1
        done += 1
        meta[META_ITERATIONS] += 1
    return done


# ================================================================ baseline players
BOT_WIN = 1000.0


@njit(cache=True)
def _bot_side(s, q):
    """cuttle.cards' AI leaf value of one side: cards in hand + 2 x point cards + 2 x royals,
    less small penalties for Queens beyond 2, glasses beyond 1 and a third King."""
    face = s[F_FACE + q]
    v = popcount(s[F_HAND + q]) + 2.0 * popcount(s[F_POINTS + q]) + 2.0 * popcount(face)
    queens = popcount(face & QUEENS)
    glasses = popcount(face & EIGHTS)
    kings = popcount(face & KINGS)
    if queens > 2:
        v -= 0.5 * (queens - 2)
    if glasses > 1:
        v -= 0.5 * (glasses - 1)
    if kings >= 3:
        v -= 0.5
    return v


@njit(cache=True)
def bot_score(s, me):
    if s[F_PHASE] == PH_OVER:
        if s[F_STATUS] == ST_WIN:
            return BOT_WIN if s[F_WINNER] == me else -BOT_WIN
        return 0.0
    return _bot_side(s, me) - _bot_side(s, other(s, me))


@njit(nogil=True, cache=True)
def cuttlebot_move(s, r, rng, buf0, buf1, c1, c2):
    """Depth-2 minimax on the true state (both hands and the deck order are seen): each
    move of the seat to act, then every reply of whoever decides next (the mean over a
    chance event). Ties are broken uniformly at random."""
    me = s[F_ACTOR]
    n = generate_moves(s, r, buf0)
    best = -1e18
    pick = 0
    ties = 0
    for i in range(n):
        c1[:] = s
        apply_move(c1, r, buf0[i])
        if c1[F_PHASE] == PH_OVER:
            v = bot_score(c1, me)
        else:
            m = generate_moves(c1, r, buf1)
            actor = c1[F_ACTOR]
            if actor == ACTOR_CHANCE:
                v = 0.0
            elif actor == me:
                v = -1e18
            else:
                v = 1e18
            for j in range(m):
                c2[:] = c1
                apply_move(c2, r, buf1[j])
                w = bot_score(c2, me)
                if actor == ACTOR_CHANCE:
                    v += w / m
                elif actor == me:
                    if w > v:
                        v = w
                elif w < v:
                    v = w
        best, pick, ties = _keep_best(v, i, best, pick, ties, rng)
    return buf0[pick]


@njit(nogil=True, cache=True)
def pimc_move(root, r, viewer, unknown, worlds, rng, policy, s, child, buf, moves, scores, cards, scratch):
    """Determinized flat Monte Carlo: in each of ``worlds`` determinizations, one rollout
    after every legal move of the viewer; the move with the best total score wins."""
    n = generate_moves(root, r, moves)
    for i in range(n):
        scores[i] = 0.0
    for _ in range(worlds):
        determinize(root, s, unknown, viewer, rng, cards, 0, 0)
        for i in range(n):
            child[:] = s
            apply_move(child, r, moves[i])
            rollout(child, r, rng, buf, policy, scratch)
            if child[F_STATUS] == ST_WIN:
                if child[F_WINNER] == viewer:
                    scores[i] += 1.0
            else:
                scores[i] += 0.5
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    return moves[best]


@njit(cache=True)
def seed_rng(seed, stream):
    """A generator state for stream ``stream`` of the user's ``seed`` (one per thread)."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) ^ (np.uint64(stream + 1) * np.uint64(0x9E3779B97F4A7C15))
    rng_next(rng)
    return rng



@njit(cache=True)
def breadth_first_order(t_first, t_sibling, nodes, order, rank):
    """Renumber a tree breadth-first so that each node's children sit together: ``order[i]``
    is the old index of new node ``i`` and ``rank`` the inverse. Siblings keep their
    relative order (older children get lower numbers, as when they were added), so a
    renumbered tree searches exactly as before, only with siblings side by side in memory."""
    order[0] = 0
    head = 0
    tail = 1
    while head < tail:
        node = order[head]
        head += 1
        k = 0
        c = t_first[node]
        while c >= 0:  # the list runs newest first
            k += 1
            c = t_sibling[c]
        j = tail + k - 1
        c = t_first[node]
        while c >= 0:
            order[j] = c
            j -= 1
            c = t_sibling[c]
        tail += k
    for i in range(nodes):
        rank[order[i]] = i
