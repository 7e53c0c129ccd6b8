"""Review benchmark: wall time to review a cuttlebot-vs-greedy game of about 60 unforced
decisions at 10,000 iterations a decision, both players, one worker process per core.
Text, then JSON.

    python benchmarks/review.py [--quick] [--json]
"""

from cuttle_search.bench import review_bench_text, run_review, script_main

if __name__ == "__main__":
    script_main(__doc__, run_review, review_bench_text)
