"""Hint server benchmark: round-trip latency (median, p99) of small requests to a warm
`cuttle-search hint`: a 100-iteration search and a refused request. Text, then JSON.

    python benchmarks/hint.py [--quick] [--json]
"""

from cuttle_search.bench import hint_text, run_hint, script_main

if __name__ == "__main__":
    script_main(__doc__, run_hint, hint_text)
