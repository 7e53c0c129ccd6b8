"""The Ray backend on a local cluster started here (skipped unless the ray extra is installed):
the same per-pair results as the local backend, and a worker killed mid-match loses nothing."""

import os
import signal
import threading
import time

import pytest

ray = pytest.importorskip("ray")

from cuttle_search.play.arena import run_arena  # noqa: E402
from cuttle_search.play.backends import RayBackend  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    ray.init(address="local", num_cpus=2, _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_gives_the_local_result_for_the_seed(cluster):
    local = run_arena("greedy", "cuttlebot", 16, seed=21, match="quick")
    far = run_arena("greedy", "cuttlebot", 16, seed=21, backend="ray")
    assert far.backend == "ray" and far.pair_results() == local.pair_results()
    for key in ("wins", "draws", "losses", "score", "scoreInterval", "elo", "meanPlies", "pentanomial", "trinomial"):
        assert far.to_json()[key] == local.to_json()[key]
    bo3 = run_arena("greedy", "random", 4, seed=2, match="bo3", backend="ray")
    assert bo3.pair_results() == run_arena("greedy", "random", 4, seed=2, match="bo3").pair_results()


def test_ray_sprt_and_resume_match_local(cluster, tmp_path):
    local = run_arena("greedy", "random", 200, seed=4, sprt="0,100")
    far = run_arena("greedy", "random", 200, seed=4, sprt="0,100", backend="ray", save=tmp_path / "m.jsonl")
    assert far.pairs == local.pairs and far.sprt == local.sprt and far.pair_results() == local.pair_results()


def _task_workers():
    """Pids of Ray workers running a pair right now (Ray titles them ray::<task function>)."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if cmd.startswith(b"ray::_versioned"):
            pids.append(int(pid))
    return pids


def test_a_ray_worker_killed_mid_match_loses_no_pair(cluster):
    spec = "pimc:iterations=2000"
    reference = run_arena(spec, "greedy", 16, seed=12)
    killed = []
    finished = threading.Event()

    def killer():
        while not finished.is_set() and not killed:
            for pid in _task_workers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
            time.sleep(0.05)

    t = threading.Thread(target=killer)
    t.start()
    try:
        r = run_arena(spec, "greedy", 16, seed=12, backend="ray")
    finally:
        finished.set()
        t.join()
    assert killed, "no Ray worker was caught running a pair"
    assert r.pair_results() == reference.pair_results()
    assert r.to_json()["pentanomial"] == reference.to_json()["pentanomial"]


def test_an_existing_ray_instance_is_left_running(cluster):
    from cuttle_search.play.statistics import elo_to_score

    with RayBackend(workers=2) as be:
        assert sorted(be.imap_unordered(elo_to_score, [0.0, 400.0])) == [0.5, 10 / 11]
    assert ray.is_initialized()


def test_review_on_ray_equals_the_local_review(cluster):
    from cuttle_search.play.agents import make_agent
    from cuttle_search.play.arena import play_game
    from cuttle_search.game.gamelog import read_game
    from cuttle_search.analysis.review import review_game
    from cuttle_search.play.backends import make_backend
    from cuttle_search.game.rules import get_ruleset

    log = play_game(get_ruleset("cuttle-cards"), 5, (make_agent("greedy"), make_agent("random")), 5).to_json()
    start, moves, _ = read_game(log)
    local = review_game(start, moves, iterations=300, seed=3)
    far = review_game(start, moves, iterations=300, seed=3, workers=2, runner=lambda n: make_backend("ray", n))
    assert far.decisions and [d.to_json() for d in far.decisions] == [d.to_json() for d in local.decisions]
