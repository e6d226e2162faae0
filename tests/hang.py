"""How long a test waits for a command it starts before calling it hung."""

# Seconds of the wall clock: a bound for a command that hangs, never a measure of speed. make test
# must stay green three times oversubscribed, where a command that takes 20 s alone takes minutes
# (a 120 s bound once failed every test of test_broken_learner_code.py beside other suites).
HANGS_AFTER = 1800
