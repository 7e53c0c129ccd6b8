"""Search benchmark: ISMCTS iterations per second on shipped positions with one thread and
with every core, memory per tree node, and the warm start time of `cuttle-search analyse`.
Text, then the same figures as JSON.

    python benchmarks/search.py [--quick] [--json]
"""

from cuttle_search.bench import run_search_benchmark, script_main, search_text

if __name__ == "__main__":
    script_main(__doc__, run_search_benchmark, search_text)
