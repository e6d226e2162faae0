"""The artifact at work: every step's function in one module, run by real processes.

`python -m lab demo | stress | bench | lease` land here (their verbs are field/commands/, which
course.toml names to the command tree): the worker A/B story
played by two processes, a stress run with stalls, clock jumps and SIGKILLs, a benchmark against
raw sqlite3, and a command-line tool to play A and B by hand from two terminals. Nothing here
writes into steps/ or solutions/: an implementation is assembled into a module file under build/
or a temporary folder, and every worker process imports that file. peers/ sets the artifact beside
three SQLite queues from the package index (`PEERS=1`), in a venv of their own.
"""
