"""Reports of a check run: JSON, SARIF, HTML, and the terminal progress bar."""

from citewarden.report.json_report import SCHEMA, build_report, display_path

__all__ = ["SCHEMA", "build_report", "display_path"]
