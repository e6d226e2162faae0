"""Running the checks in child processes: the runner, the child process it starts and watches, the child, its recorder plugin and the probe."""
