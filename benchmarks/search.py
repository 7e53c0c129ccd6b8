"""Search benchmark: ISMCTS iterations per second on shipped positions with one thread and
with every core, memory per tree node, and the warm start time of `cuttle-search analyse`.
Text, then the same figures as JSON.

    python benchmarks/search.py [--quick] [--json]
"""

import argparse
import json

from cuttle_search.bench import run_search, search_text

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs for a rough figure")
    ap.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = ap.parse_args()
    fig = run_search(args.quick, progress=True)
    if not args.json:
        print("\n".join(search_text(fig)))
    print(json.dumps(fig, indent=2))
