"""Reports of a check run: JSON, SARIF, HTML, and the terminal progress bar."""
