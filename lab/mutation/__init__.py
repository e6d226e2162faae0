"""The mutation report: mutmut 3's mutants of an implementation, each through the checker's kill matrix."""
