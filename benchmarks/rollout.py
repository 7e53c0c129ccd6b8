"""Rollout benchmark: random-playout plies/s and games/s from the deal (one thread), the
cold compile time, and the warm start time of the CLI. Text, then the same figures as JSON.

    python benchmarks/rollout.py [--quick] [--json]
"""

from cuttle_search.bench import rollout_text, run_rollout, script_main

if __name__ == "__main__":
    script_main(__doc__, run_rollout, rollout_text)
