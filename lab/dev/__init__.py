"""For the lab's authors: the course checked against its tree (`dev check`), a new step scaffolded (`dev new-step`)."""
