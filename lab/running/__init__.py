"""Running the checks in child processes: the runner, the child, its recorder plugin and the probe."""
