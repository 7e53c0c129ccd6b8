"""Playing games: agents (a registry by spec), the arena and its statistics, the local and
Ray backends, and self-play."""
