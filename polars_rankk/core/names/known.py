"""Measures other tools define that this library does not compute, refused as such.

A name of trec_eval 10 (its ``m_*.c``) or ir_measures that names no metric here raises "known
to <tool>, not computed here", never "unknown metric name": the user learns that the measure
exists and that this library lacks it, not that they mistyped. A measure added to the registry
leaves this table: the registry's names are read first (`polars_rankk.core.names.parse`).
trec_eval's ``relstring`` is text, no metric: its name says where it is (`rk.relstring`).
"""

from __future__ import annotations

import re

__all__ = ["KNOWN_ELSEWHERE", "refuse_known_elsewhere"]

#: A measure name's base and parameters, as trec_eval (``relstring_20``, ``P_avgjg.5``) and
#: ir_measures (``alpha_nDCG(alpha=0.5)@20``) write them.
_ANY_TOOL = re.compile(r"^(?P<base>[A-Za-z0-9][A-Za-z0-9_]*?)(?:[_.][\d.,]+)?(?:\(.*\))?(?:@.+)?$")

#: Measures that trec_eval 10 (its m_*.c) and ir_measures define but this library does not
#: compute: refused by name as such, never as unknown.
KNOWN_ELSEWHERE: dict[str, str] = {
    **dict.fromkeys(
        (
            *("ndcg_p", "ideal_dcg"),
            *("runid", "num_q", "yaap"),
            *("P_avgjg", "map_avgjg", "Rprec_mult_avgjg", "prefs_simp", "prefs_pair"),
            *("prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret"),
            *("prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp"),
            *("prefs_pair_imp", "prefs_avgjg_imp", "prefs_num_prefs_poss"),
            *("prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"),
        ),
        "trec_eval",
    ),
    **dict.fromkeys(
        (
            *("alpha_nDCG", "ERR_IA", "nERR_IA", "AP_IA", "P_IA", "NRBP"),
            *("StRecall", "INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9"),
            *("NERR10", "NERR11", "NumQ"),
        ),
        "ir_measures",
    ),
}


def refuse_known_elsewhere(text: str) -> None:
    """Raise a ValueError when `text` names a measure another tool defines and this library
    does not compute (return otherwise).

    Examples
    --------
    >>> from polars_rankk.core.names.known import refuse_known_elsewhere
    >>> refuse_known_elsewhere("yaap")
    Traceback (most recent call last):
    ...
    ValueError: metric 'yaap': yaap is known to trec_eval, not computed here (the measures \
computed, with their trec_eval names: docs/metric_names.md)
    >>> refuse_known_elsewhere("no_such_measure") is None
    True
    """
    match = _ANY_TOOL.match(text.strip())
    if match is None:
        return
    if match["base"].lower() == "relstring":
        raise ValueError(
            f"metric {text!r}: trec_eval's relstring is text, not a number, so no metric: "
            "rk.relstring(relevance, by=..., n=10) writes it per group (an expression)"
        )
    by_name = {name.lower(): (name, tool) for name, tool in KNOWN_ELSEWHERE.items()}
    found = by_name.get(match["base"].lower())
    if found is not None:
        name, tool = found
        raise ValueError(
            f"metric {text!r}: {name} is known to {tool}, not computed here (the measures "
            f"computed, with their {tool} names: docs/metric_names.md)"
        )
