"""The course model: the steps, an implementation and how it loads, the mutants, the plan of a run."""
