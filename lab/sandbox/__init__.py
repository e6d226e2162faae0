"""Running learner code in a process of its own, confined where the machine allows it.

The checks and the recorder never load learner code: they call it through a narrow channel
(``remote.py``) in a learner process (``learner/``, the standard library only), started inside bubblewrap
(``confinement.py``) with the hard limits of a learner process (``lab/process.py``).
"""
