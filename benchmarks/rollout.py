"""Rollout benchmark: random-playout plies/s and games/s from the deal (one thread), the
cold compile time, and the warm start time of the CLI. Text, then the same figures as JSON.

    python benchmarks/rollout.py [--quick] [--json]
"""

import argparse
import json

from cuttle_search.bench import rollout_text, run_rollout

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs for a rough figure")
    ap.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = ap.parse_args()
    fig = run_rollout(args.quick, progress=True)
    if not args.json:
        print("\n".join(rollout_text(fig)))
    print(json.dumps(fig, indent=2))
