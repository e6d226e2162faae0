"""The mutation report: mutmut 3 over an implementation, each mutant through the checker's kill matrix."""
