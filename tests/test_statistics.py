"""Paired-game statistics: pentanomial Elo, nElo, LOS and the SPRT, against hand-computed
values and fastchess's published reports, and SPRT error rates by simulation."""

import math

import numpy as np
import pytest

from cuttle_search.play.statistics import (
    NELO_SCALE,
    PENTA_SCORES,
    Sprt,
    SprtError,
    elo_to_score,
    llr_normal_approximation,
    llr_pentanomial,
    mle_distribution,
    mle_distribution_normalized,
    normalized_elo,
    pair_report,
    pentanomial,
    pentanomial_estimate,
    report_text,
)


def test_pentanomial_counts_pairs_by_points():
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError):
        pentanomial([0.25])


def test_worked_example_by_hand():
    """60 pairs, Ptnml(0-2) [5, 10, 20, 15, 10]. Per game: s = (10/4 + 20/2 + 15*3/4 + 10) / 60
    = 33.75/60 = 0.5625. Pair variance: E[x^2] = (10/16 + 20/4 + 15*9/16 + 10)/60 = 24.0625/60,
    minus s^2: 0.0846354. se = sqrt(var/60) = 0.0375578, LOS = Phi(0.0625/se) = Phi(1.66410) = 0.95195."""
    c = [5, 10, 20, 15, 10]
    est = pentanomial_estimate(c)
    assert est.score == pytest.approx(0.5625)
    var = 24.0625 / 60 - 0.5625**2
    assert est.variance == pytest.approx(var) and var == pytest.approx(0.0846354, abs=1e-7)
    assert est.standard_error == pytest.approx(0.0375578, abs=1e-7)
    assert est.los == pytest.approx(0.95195, abs=1e-5)
    lo, hi = est.interval
    assert (lo, hi) == pytest.approx((0.5625 - 1.959964 * 0.0375578, 0.5625 + 1.959964 * 0.0375578), abs=1e-6)
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.5625 - 1))  # 43.66
    # the normal-approximation LLR for H0 0 Elo against H1 10 Elo: s0 = 0.5,
    # s1 = 1 / (1 + 10^-0.025) = 0.5143872; N (s1 - s0)(2s - s0 - s1) / (2 var) = 0.56409
    assert elo_to_score(10) == pytest.approx(0.5143872, abs=1e-7)
    assert llr_normal_approximation(c, 0, 10) == pytest.approx(0.56409, abs=1e-5)
    # the exact GSPRT (maximum-likelihood pentanomials) agrees to a few per cent here
    assert llr_pentanomial(c, 0, 10) == pytest.approx(0.56409, rel=0.05)


@pytest.mark.parametrize("counts, elo, err, nelo, nerr, los, pairs_ratio, llr", [
    # fastchess 1.x reports (Ptnml(0-2), Elo +/-, nElo +/-, LOS %, PairsRatio, LLR for normalised [0, 10])
    ([1, 11, 47, 25, 16], 77.71, 33.03, 117.50, 48.15, 100.00, 3.42, 1.71),
    ([1, 15, 25, 33, 26], 123.02, 40.58, 159.46, 48.15, 100.00, 3.69, 2.19),
    ([1, 24, 42, 25, 8], 26.11, 31.23, 40.51, 48.15, 95.04, 1.32, 0.60),
    ([2, 23, 32, 35, 8], 41.89, 33.28, 61.39, 48.15, 99.38, 1.72, 0.92),
])
def test_matches_fastchess_reports(counts, elo, err, nelo, nerr, los, pairs_ratio, llr):
    est = pentanomial_estimate(counts)
    assert round(est.elo, 2) == elo and round(est.elo_error, 2) == err
    n, nlo, nhi = normalized_elo(est)
    assert round(n, 2) == nelo and round((nhi - nlo) / 2, 2) == nerr
    assert round(100 * est.los, 2) == los
    pairs = [[0, 0]] * counts[0] + [[0, 0.5]] * counts[1] + [[0.5, 0.5]] * counts[2] + [[1, 0.5]] * counts[3] + [[1, 1]] * counts[4]
    j = pair_report(pairs)
    assert j["counts"] == counts and j["pairsRatio"] == pairs_ratio and j["elo"] == elo
    assert round(Sprt(0, 10, model="normalized").llr(counts), 2) == llr


def test_mle_distributions_meet_their_constraint():
    probs = np.array([5, 10, 20, 15, 10]) / 60
    for s in (0.45, 0.5, 0.5143868, 0.6):
        p = mle_distribution(probs, PENTA_SCORES, s)
        assert p.sum() == pytest.approx(1) and p @ PENTA_SCORES == pytest.approx(s) and (p > 0).all()
    t = math.sqrt(2) * 10 / NELO_SCALE
    p = mle_distribution_normalized(probs, PENTA_SCORES, t)
    mu = p @ PENTA_SCORES
    sd = math.sqrt(p @ (PENTA_SCORES - mu) ** 2)
    assert p.sum() == pytest.approx(1, abs=1e-6) and (mu - 0.5) / sd == pytest.approx(t, rel=1e-4)
    # the observed frequencies already have the mean: no tilt, LLR 0 between equal hypotheses
    assert mle_distribution(probs, PENTA_SCORES, 0.5625) == pytest.approx(probs)


def test_sprt_bounds_decisions_and_parsing():
    s = Sprt.parse("0,5")
    assert (s.alpha, s.beta, s.model) == (0.05, 0.05, "logistic")
    assert s.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439, abs=1e-6)
    assert s.upper == pytest.approx(2.944439, abs=1e-6)
    assert s.decide(3.0) == "H1" and s.decide(-3.0) == "H0" and s.decide(0.0) is None
    t = Sprt.parse(" -2.5, 2.5, 0.1, 0.2 ", model="normalized")
    assert (t.elo0, t.elo1, t.alpha, t.beta, t.model) == (-2.5, 2.5, 0.1, 0.2, "normalized")
    assert t.upper == pytest.approx(math.log(0.8 / 0.1))
    assert s.llr([0, 0, 0, 0, 0]) == 0.0
    assert s.llr([0, 0, 0, 0, 40]) > 0 > s.llr([40, 0, 0, 0, 0])
    for bad, msg in [("5", "expected elo0,elo1"), ("0,5,0.05", "expected elo0,elo1"), ("5,0", "must be below"),
                     ("0,x", "expected numbers"), ("0,5,0,0.05", "alpha must lie"), ("0,5,0.05,0.7", "beta must lie"),
                     ("nan,5", "finite"), ("0,inf", "finite"), ("0,5000", "within")]:
        with pytest.raises(SprtError, match=msg):
            Sprt.parse(bad)
    with pytest.raises(SprtError, match="model"):
        Sprt(0, 5, model="bayesian")


def test_report_text_reads_like_fastchess():
    pairs = [[1, 0]] * 3 + [[0.5, 0.5]] * 2 + [[1, 1]] * 4 + [[0, 0.5]]
    lines = report_text("a vs b", (13, 4, 3), pairs, Sprt(0, 50))
    # each line says what it counts: the ratios count pairs, the W/L/D line games (issue 26 item 16)
    assert lines[0] == "Results of a vs b, by pairs of games (a pair: one deal played twice, the seats swapped):"
    # DrawRatio: 5 of the 10 pairs scored 1 point (3 won-lost, 2 drawn-drawn); PairsRatio: 4 won / 1 lost
    assert lines[2].endswith(" %, DrawRatio: 50.00 % of pairs (1 point of 2), PairsRatio: 4.00 (pairs won / lost)")
    assert lines[4] == "Ptnml(0-2): [0, 1, 5, 0, 4] of 10 pairs, WL/DD Ratio: 1.50"
    assert lines[3] == "Games: 20, Wins: 13, Losses: 4, Draws: 3, Points: 14.5 (72.50 %)"
    assert lines[5].startswith("LLR: ") and lines[5].endswith("[0.00, 50.00]: no decision yet")


def simulate(sprt, true_elo, runs, steps, seed):
    """Fraction of SPRT runs accepting H1 and H0, when the true strength is ``true_elo`` (in
    the test's own units) on a draw-heavy pentanomial shape."""
    base = np.array([0.05, 0.2, 0.5, 0.2, 0.05])
    if sprt.model == "logistic":
        p = mle_distribution(base, PENTA_SCORES, elo_to_score(true_elo))
    else:
        p = mle_distribution_normalized(base, PENTA_SCORES, math.sqrt(2) * true_elo / NELO_SCALE)
    draws = np.random.default_rng(seed).choice(5, size=(runs, steps), p=p)
    counts = np.cumsum(np.eye(5, dtype=int)[draws], axis=1)
    llr = np.asarray(llr_pentanomial(counts.reshape(-1, 5), sprt.elo0, sprt.elo1, sprt.model)).reshape(runs, steps)
    up, down = llr >= sprt.upper, llr <= sprt.lower
    first_up = np.where(up.any(1), up.argmax(1), steps)
    first_down = np.where(down.any(1), down.argmax(1), steps)
    return float((first_up < first_down).mean()), float((first_down < first_up).mean())


def test_sprt_error_rates_small():
    """200 runs at each hypothesis: the false-positive and false-negative rates near 5%."""
    s = Sprt(0, 60)
    h1, h0 = simulate(s, 0, 200, 300, seed=1)
    assert 0.01 <= h1 <= 0.10 and h0 >= 0.88
    h1, h0 = simulate(s, 60, 200, 300, seed=2)
    assert 0.01 <= h0 <= 0.10 and h1 >= 0.88


@pytest.mark.slow
@pytest.mark.parametrize("model, elo1, runs, steps", [("logistic", 30, 2000, 800), ("normalized", 60, 1000, 500)])
def test_sprt_error_rates(model, elo1, runs, steps):
    """Within 4 standard errors of alpha and beta, almost every run decided."""
    for alpha, beta in ((0.05, 0.05), (0.1, 0.05)):
        s = Sprt(0, elo1, alpha, beta, model)
        h1, h0 = simulate(s, 0, runs, steps, seed=11)
        assert abs(h1 - alpha) <= 4 * math.sqrt(alpha * (1 - alpha) / runs) and h0 + h1 >= 0.99
        h1, h0 = simulate(s, elo1, runs, steps, seed=12)
        assert abs(h0 - beta) <= 4 * math.sqrt(beta * (1 - beta) / runs) and h0 + h1 >= 0.99
