"""polars-rankk against trec_eval v10's own regression outputs (tests/data/trec_eval).

Each ``out.*`` file was printed by ``trec_eval -m all_trec -q`` on the files beside it (see the
README there). **Every line** is read: each measure is asked for by the name trec_eval prints
(``P_5``, ``iprec_at_recall_0.50``, ``Rprec_mult_0.20``, ``relative_P_5``, ``unj_10``), the
evaluation's rows are written back in trec_eval's spelling (`render_name`), and each value,
per query and on the ``all`` line, must print trec_eval's 4 decimals. The only lines not
compared are ``runid`` (the run's tag) and the measures of `NOT_COMPUTED`, each of which the
name parser refuses as known to trec_eval and not computed here; the test fails if that set
is not exactly what the library lacks, so it cannot hide a measure.

How the command-line flags are expressed:

- ``-c`` (a qrels query without results scores 0 and is averaged in) is
  ``missing_groups="zero"``, part of ``Policy.trec_eval()``; without ``-c`` trec_eval only
  reports queries that have results, which is ``missing_groups="exclude"``.
- ``-M100`` (only the first 100 results of each query, after sorting, are used) is a
  Polars window over the run before ``evaluate`` (:func:`trec_eval_files.top_m`); it also cuts
  the list ``recip_rank`` and ``Rprec`` see (query 301 has R = 474 but only 100 ranks).
- ``-l2`` is ``relevance_threshold=2``; ndcg_cut keeps using the raw grades.
- the ``all`` line is the macro mean over the reported queries (``summary()``), except for the
  counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``), which trec_eval
  sums, as ``summary(names="trec_eval")`` does, and ``num_q``, the number of queries
  (``n_groups``).
- trec_eval's whole-list ``ndcg`` is asked for as ``nDCG`` (the name ``ndcg`` is this library's
  canonical nDCG at the evaluation's K), and its ``rbp`` as ``trec_rbp`` (the canonical ``rbp``
  has a K and binary or raw grades); the writer keeps both canonical (trec_eval's names would
  read back here as the canonical ndcg and rbp), so they are compared under trec_eval's names.

qrels.rel_level holds grades of -1, which docs/definitions.md §1 says count as gain 0 (and not
relevant); under ``Policy.trec_eval()`` they are pooled but unjudged, as infAP counts them; the
qrels are passed unchanged.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.names.parse import parse_metric_names, render_name
from polars_rankk.core.names.write import SUMMED_BY_TOOLS
from tests.support.trec_eval_files import (
    DATA,
    TREC_EVAL_RUNS,
    TrecEvalRun,
    parse_trec_eval_output,
    top_m,
)

# trec_eval prints 4 decimals: our value rounded to 4 decimals must print the same digits
TOLERANCE = 5e-5 + 1e-9
#: The measures of ``-m all_trec`` this library does not compute.
NOT_COMPUTED: frozenset[str] = frozenset()
#: trec_eval's text-valued measure, no metric: `rk.relstring` writes it per query.
TEXT = "relstring"
#: Measures computed here whose number differs from trec_eval's on a file, and why (the
#: test fails as soon as they agree, or another measure disagrees).
DIFFERENT: dict[str, str] = {}
#: trec_eval's names that mean something else here: its whole-list ``ndcg`` is ``nDCG``, its
#: ``rbp`` (whole list, grades rescaled by the query's largest) ``trec_rbp``.
ASKED_AS = {"ndcg": "nDCG", "rbp": "trec_rbp"}
#: The lines that are no measurement.
NOT_MEASURES = frozenset({"runid"})


def _text_length(measure: str) -> int | None:
    """N of a relstring line (``relstring`` is trec_eval's default 10, ``relstring_20``)."""
    if measure == TEXT:
        return 10
    base, _, n = measure.rpartition("_")
    return int(n) if base == TEXT and n.isdigit() else None


def _not_computed(measure: str) -> bool:
    """A measure of `NOT_COMPUTED`, or a line of one (``relstring_20``)."""
    return measure in NOT_COMPUTED or measure.rsplit("_", 1)[0] in NOT_COMPUTED


def _measures(out: dict[tuple[str, str], str]) -> list[str]:
    """The measure names of an output file, in file order, once each."""
    return list(dict.fromkeys(measure for measure, _ in out))


def _evaluate(case: TrecEvalRun, names: list[str]) -> rk.Evaluation:
    run = rk.read_trec_run(DATA / case.run)
    if case.max_results is not None:
        run = top_m(run, case.max_results)
    with_c = " -c" in case.command
    policy = rk.Policy.trec_eval(
        relevance_threshold=case.relevance_level,
        missing_groups="zero" if with_c else "exclude",
    )
    return rk.evaluate(
        run,
        rk.read_trec_qrels(DATA / case.qrels),
        metrics=[ASKED_AS.get(name, name) for name in names],
        group_by="query",
        item="item",
        score="score",
        relevance="relevance",
        policy=policy,
    )


def _written(metric: str, k: int | None) -> str:
    """trec_eval's spelling of a row (a threshold given by -l is the flag's, not the name's);
    its whole-list ndcg and its rbp print names that read here as the canonical ndcg and rbp,
    so the writer keeps them canonical: named here as trec_eval prints them."""
    if (metric, k) in (("ndcg", None), ("trec_rbp", None)):
        return {"ndcg": "ndcg", "trec_rbp": "rbp"}[metric]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return render_name(metric, k, rk.Policy.trec_eval(), style="trec_eval")


def _got(result: rk.Evaluation) -> dict[tuple[str, str], float]:
    per_group = result.per_group
    assert isinstance(per_group, pl.LazyFrame)  # lazy inputs give a lazy result
    rows = per_group.collect()
    got = {
        (_written(row["metric"], row["k"]), row["query"]): row["value"]
        for row in rows.iter_rows(named=True)
    }
    summary = result.summary()
    for row in summary.iter_rows(named=True):
        got[_written(row["metric"], row["k"]), "all"] = row["value"]
    # trec_eval's summary line sums the counts.
    summed = (
        rows.filter(pl.col("metric").is_in(SUMMED_BY_TOOLS))
        .group_by("metric")
        .agg(pl.col("value").sum())
    )
    for row in summed.iter_rows(named=True):
        got[_written(row["metric"], None), "all"] = row["value"]
    got["num_q", "all"] = float(summary["n_groups"].max())  # type: ignore[arg-type]
    return got


@pytest.mark.parametrize("case", TREC_EVAL_RUNS, ids=lambda c: c.id)
def test_every_line_matches_trec_eval(case: TrecEvalRun) -> None:
    out = parse_trec_eval_output(DATA / case.out)
    left_out = NOT_MEASURES | {"num_q"}
    names = [
        m
        for m in _measures(out)
        if not _not_computed(m) and m not in left_out and _text_length(m) is None
    ]
    got = _got(_evaluate(case, names))
    mismatches, differing, compared, skipped = [], set(), 0, 0
    for (measure, query), text in out.items():
        if _not_computed(measure) or measure in NOT_MEASURES or _text_length(measure):
            skipped += 1  # relstring: test_relstring_matches_trec_eval
            continue
        compared += 1
        value = got.get((measure, query))
        if value is None or abs(round(value, 4) - float(text)) > TOLERANCE:
            if measure in DIFFERENT:
                differing.add(measure)
            else:
                mismatches.append(f"{measure} {query}: polars-rankk {value!r}, trec_eval {text}")
    assert not mismatches, f"{case.out} ({case.command}):\n" + "\n".join(mismatches)
    assert differing == set(DIFFERENT), differing
    assert compared + skipped == len(out) == 387


@pytest.mark.parametrize("case", TREC_EVAL_RUNS, ids=lambda c: c.id)
def test_relstring_matches_trec_eval(case: TrecEvalRun) -> None:
    out = parse_trec_eval_output(DATA / case.out)
    run = rk.read_trec_run(DATA / case.run)
    if case.max_results is not None:
        run = top_m(run, case.max_results)
    policy = rk.Policy.trec_eval(relevance_threshold=case.relevance_level)
    labelled = rk.label(run, rk.read_trec_qrels(DATA / case.qrels), group_by="query", policy=policy)
    lengths = {m: n for m in _measures(out) if (n := _text_length(m)) is not None}
    assert lengths
    for measure, n in lengths.items():
        strings = labelled.group_by("query").agg(
            rk.relstring("relevance", by="score", item="item", n=n, policy=policy)
        )
        got = dict(strings.collect().iter_rows())
        want = {q: text.strip("'") for (m, q), text in out.items() if m == measure}
        # A qrels query without results (-c) prints the empty string.
        assert {query: got.get(query, "") for query in want} == want, measure


def test_what_is_not_compared_is_exactly_what_is_not_computed() -> None:
    """Each measure left out above is refused by name as known to trec_eval and not computed
    here; every other measure trec_eval prints is read by its name."""
    out = parse_trec_eval_output(DATA / "out.test.aq")
    for measure in _measures(out):
        if _text_length(measure) is not None:
            with pytest.raises(ValueError, match=r"rk\.relstring"):
                parse_metric_names(measure)
            continue
        if measure in NOT_MEASURES or measure == "num_q":
            continue
        if _not_computed(measure):
            with pytest.raises(ValueError, match="known to trec_eval, not computed here"):
                parse_metric_names(measure)
        else:
            assert parse_metric_names(ASKED_AS.get(measure, measure)), measure


@pytest.mark.parametrize("case", TREC_EVAL_RUNS, ids=lambda c: c.id)
def test_counts_match_trec_eval(case: TrecEvalRun) -> None:
    out = parse_trec_eval_output(DATA / case.out)
    groups = _evaluate(case, ["num_ret", "num_rel"]).groups
    groups = groups.collect() if isinstance(groups, pl.LazyFrame) else groups
    got = {row["query"]: row for row in groups.iter_rows(named=True)}
    queries = sorted({q for (_, q) in out if q != "all"})
    assert sorted(got) == queries
    for q in queries:
        assert got[q]["n_candidates"] == int(out["num_ret", q]), q
        assert got[q]["n_relevant"] == int(out["num_rel", q]), q


def test_without_c_only_queries_with_results_are_reported() -> None:
    # results.trunc has no line for query 302: with -c it scores 0 (out.test.aqc) ...
    aqc = parse_trec_eval_output(DATA / "out.test.aqc")
    assert aqc["num_ret", "302"] == "0"
    assert aqc["P_10", "302"] == "0.0000"
    # ... and missing_groups="exclude" (trec_eval without -c) leaves it out
    res = rk.evaluate(
        rk.read_trec_run(DATA / "results.trunc"),
        rk.read_trec_qrels(DATA / "qrels.test"),
        k=10,
        metrics="precision",
        group_by="query",
        policy=rk.Policy.trec_eval(missing_groups="exclude"),
    )
    assert sorted(res.per_group.collect()["query"].to_list()) == ["301", "303"]
