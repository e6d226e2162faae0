"""Every default a command line can change, written once.

lab/settings.py makes a command's Settings from them; the functions deeper down take the value
they are given and fall back on these only when a test or a tool calls them directly.
"""

TIME_LIMIT = 10.0  # seconds one check may run (the Makefile's TIME_LIMIT)
CHECK_BUDGET = 600.0  # seconds all the checks of one `check` of the learner's code may take
CLASS_BUDGET = 120.0  # seconds one learner's whole run in `check-class` may take
SIMILAR = 0.9  # the share of a submission's own code found elsewhere that check-class flags
ASSIGNMENT = "Lease lab"  # the column of canvas.csv and moodle.csv: the assignment's title
