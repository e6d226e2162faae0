"""The course model: the steps and their checks, an implementation and how it loads, the mutants, the plan of a run."""
