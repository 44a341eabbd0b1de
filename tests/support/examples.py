"""How many examples a property test of tests/core draws.

The suite's main run draws every example a test asks for. The runs that repeat tests/core on
another path — pure Polars, and the kernel on the oldest supported Polars — check that the same
properties hold there; the search over the combinations of inputs and policies has been made by
the main run, so they draw a share of the examples (``POLARS_RANKK_EXAMPLE_SHARE``, set by the
Makefile), which keeps every test and every strategy while the suite stays within its time.
"""

from __future__ import annotations

import os

SHARE = float(os.environ.get("POLARS_RANKK_EXAMPLE_SHARE", "1"))

#: Fewer examples than this find little; a share never goes below it.
FEWEST = 10


def examples(wanted: int) -> int:
    """`wanted` examples in the main run; this run's share of them, at least FEWEST, otherwise."""
    if SHARE >= 1:
        return wanted
    return min(wanted, max(FEWEST, round(wanted * SHARE)))
