"""The checker of the lease and fencing-token lab: load code, apply mutants, run the checks, report."""
