"""The self-contained HTML report of one or more systems."""

from polars_rankk.reports.document import render_evaluations, render_report, report

__all__ = ["render_evaluations", "render_report", "report"]
