"""The ``rankk`` command: evaluate and compare ranking files from a shell."""

from polars_rankk.cli.app import main

__all__ = ["main"]
