"""Every learner-facing sentence of the checker and the reports, in English and Japanese."""
