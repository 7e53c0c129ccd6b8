"""The ranges every search option must fall in, shared by the API, the command line and
the hint server (which may set tighter caps of its own, see ``hint.ServerLimits``)."""

MAX_ITERATIONS = 1_000_000_000  # about 37 GB of tree: more than any machine here holds
MAX_SECONDS = 7 * 24 * 3600.0
MAX_THREADS = 256
MAX_SEED = 2**63 - 1
MAX_EXPLORATION = 1000.0
