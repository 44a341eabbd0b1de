"""``python -m polars_rankk.cli``: the ``rankk`` command without the installed script."""

from polars_rankk.cli.app import main

main()
