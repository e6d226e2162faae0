"""What a run is written as: the terminal report, results JSON, JUnit XML and Exercism's results."""
