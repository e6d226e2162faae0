"""What runs in the learner process, beside the learner's code: the server that answers the
channel (``server.py``), the values it sends (``plain.py``), what it sees of SQLite statements
(``statements.py``) and the stand-in of a watched function (``stand_in.py``). The standard library
only: the sandbox shows the learner process this folder and nothing else of the lab."""
