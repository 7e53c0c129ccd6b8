"""Hint server benchmark: round-trip latency (median, p99) of small requests to a warm
`cuttle-search hint`: a 100-iteration search, a refused request, and a 10,000-iteration
search on opening-p0 (the target: under 60 ms). Text, then JSON.

    python benchmarks/hint.py [--quick] [--json]
"""

from cuttle_search.bench import hint_text, run_hint, script_main

if __name__ == "__main__":
    script_main(__doc__, run_hint, hint_text)
