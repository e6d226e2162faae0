"""What each command computes: one check run, a class, the learner's predictions, and the kill matrix with the cache keys of its results."""
