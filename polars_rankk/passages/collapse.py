"""`to_documents`: a passage run collapsed to one row per (group, document), its score made of
its passages' scores, in one lazy aggregation.

Invalid scores and repeated passages are handled as `evaluate` handles invalid scores and
repeated items, under the same `Policy` fields; the documents are ordered (and cut at `depth`)
by score and the Policy's tie order.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import polars as pl

from polars_rankk.core import (
    FrameLike,
    Policy,
    check_numeric,
    normalize_keys,
    require_columns,
    to_lazy,
)
from polars_rankk.core.columns import ROW, SCORE
from polars_rankk.core.inputs.normalize import column_name
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.order import RELEVANCE_AWARE_TIES
from polars_rankk.core.types import PassageAggregate
from polars_rankk.passages.checks import INVALID_SCORE, REPEATED, refuse, refuse_first
from polars_rankk.passages.ids import DOCUMENT, document_checks, shown_document, with_document
from polars_rankk.passages.rule import DocumentRule

#: The passage's position in its document (``aggregate="first"``).
INDEX = "_rk_passage_index"


class DepthTieWarning(UserWarning):
    """The `depth` cut falls inside a tie of documents' scores under a tie policy that reads
    relevance (``pessimistic``, ``optimistic``, ``expected``): the tie is kept whole."""


def to_documents(
    run: FrameLike,
    *,
    group_by: str | Sequence[str],
    document: object,
    item: str = "item",
    score: str = "score",
    aggregate: PassageAggregate = "max",
    top: int | None = None,
    passage_index: str | None = None,
    depth: int | None = None,
    policy: Policy | None = None,
    check_values: bool = True,
) -> FrameLike:
    """Collapse a passage (chunk, segment) run to documents: one row per (group, document).

    A document's score is made of its passages' scores by `aggregate` (MaxP, FirstP and
    their dialects, `polars_rankk.passages.AGGREGATES`); ``docs/passages.md`` says which tool
    each reproduces.

    Parameters
    ----------
    run
        One row per (group, passage): the `group_by` columns, `item` (the passage id) and
        `score` (higher first). A LazyFrame gives a LazyFrame (and its values are checked in
        one scan now, unless ``check_values=False``); any other table a DataFrame.
    group_by
        The group key column(s), as for `evaluate`.
    document
        How a passage names its document: a delimiter — the document id is the passage id up
        to the first occurrence of this literal text (``"#"`` for MS MARCO v2.1 segments,
        ``msmarco_v2.1_doc_29_677149#3_1156405``), an id without it being its own document;
        a mapping table with the passage column (named `item`) and ``document``, each passage
        once (eager or lazy); or a Polars expression giving each row's document id.
    item, score
        The run's passage id and score columns; the output's document id column is named
        `item` too, so it goes to `evaluate` as it is.
    aggregate
        ``"max"`` (MaxP: Anserini's and PyTerrier's), ``"first"`` (FirstP: the passage with
        the lowest `passage_index`), ``"mean"``, ``"sum"``, ``"kmax_avg"`` (the mean of the
        `top` best passages; of all, when a document has fewer).
    top
        For ``"kmax_avg"``: how many of the best passages are averaged (>= 1).
    passage_index
        For ``"first"``: the column giving each passage's position in its document; a null,
        or two passages of one document at one position, is refused.
    depth
        Keep each group's best `depth` documents (Anserini's ``-selectMaxPassage.hits``,
        Pyserini's ``--max-passage-hits``); None keeps them all.
    policy
        The `Policy` whose ``invalid_scores`` (null, NaN, inf scores: refused, dropped or
        ranked last), ``duplicates`` (a passage twice in a group: its best copy kept, refused,
        or every copy counted) and ``ties`` (the order of documents with equal scores, and
        who is kept at the `depth` cut) apply, as `evaluate` applies them. Tie orders that
        read relevance (``pessimistic``, ``optimistic``, ``expected``) cannot order documents
        here, before relevance is known: a tie at the `depth` cut is kept whole (more than
        `depth` documents in that group), with a `DepthTieWarning` on eager input.
    check_values
        Scan the run for nulls, invalid scores, empty document ids, passages the mapping
        lacks and repeated passage indices, and refuse them naming the column and a row.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        The group keys, `item` (the document id) and `score` (Float64), one row per
        (group, document), each group's documents in rank order.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> run = pl.DataFrame({"q": [1, 1, 1, 1], "item": ["d1#0", "d2#0", "d1#1", "d3"],
    ...                     "score": [0.9, 0.8, 0.7, 0.6]})
    >>> rk.to_documents(run, group_by="q", document="#")
    shape: (3, 3)
    ┌─────┬──────┬───────┐
    │ q   ┆ item ┆ score │
    │ --- ┆ ---  ┆ ---   │
    │ i64 ┆ str  ┆ f64   │
    ╞═════╪══════╪═══════╡
    │ 1   ┆ d1   ┆ 0.9   │
    │ 1   ┆ d2   ┆ 0.8   │
    │ 1   ┆ d3   ┆ 0.6   │
    └─────┴──────┴───────┘
    >>> rk.to_documents(run, group_by="q", document="#", aggregate="mean")["score"].to_list()
    [0.8, 0.8, 0.6]

    See Also
    --------
    truth_to_documents : the truth's passage grades made document grades.
    chunk_diagnostics : how the top passages of each group spread over documents.
    """
    rule = DocumentRule(
        document, aggregate=aggregate, top=top, passage_index=passage_index, depth=depth
    )
    return documents_of(
        run, rule, group_by=group_by, item=item, score=score, policy=policy,
        check_values=check_values,
    )  # fmt: skip


def documents_of(
    run: object,
    rule: DocumentRule,
    *,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    policy: Policy | None = None,
    check_values: bool = True,
) -> FrameLike:
    """`to_documents` of a `DocumentRule` (what the engines and the CLI call)."""
    policy = Policy() if policy is None else policy
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a polars_rankk.Policy; got {type(policy).__name__}")
    keys = list(normalize_keys(group_by))
    item, score = column_name(item, "item"), column_name(score, "score")
    frame = to_lazy(run, "run")
    rows = passage_rows(frame, rule, keys=keys, item=item, score=score, policy=policy)
    lazy = isinstance(run, pl.LazyFrame)
    # In memory the kernel checks the values in its own scan; a LazyFrame's are checked now.
    ranked = kernel_documents(frame, rule, keys=keys, item=item, score=score, policy=policy,
                              check_values=check_values and not lazy)  # fmt: skip
    if ranked is not None:
        # The kernel reads each passage's document in place: no document column is made.
        if not lazy:
            return _kernel_collected(
                ranked, rows, rule, keys=keys, item=item, score=score, policy=policy
            )
        if check_values:
            check_passages(rows, rule, keys=keys, item=item, score=score, policy=policy)
        return ranked
    if check_values and not lazy:
        # In memory, each row's document id is cut once, for the checks and the collapse.
        rows = rows.collect().lazy()
    if check_values:
        check_passages(rows, rule, keys=keys, item=item, score=score, policy=policy)
    documents = ranked_documents(rows, rule, keys=keys, item=item, score=score, policy=policy)
    if lazy:
        return documents
    collected = documents.collect()
    _warn_kept_ties(collected, rule, keys, policy)
    return collected


def documents_schema(
    schema: dict[str, pl.DataType],
    rule: DocumentRule,
    *,
    group_by: str | Sequence[str],
    item: str,
    score: str,
) -> dict[str, pl.DataType]:
    """The schema `rule` gives a run of `schema` (its columns checked, no row read): what an
    engine checks on its driver before it ships passages to be collapsed in each partition."""
    empty = pl.DataFrame(schema=schema).lazy()
    found = documents_of(empty, rule, group_by=group_by, item=item, score=score,
                         check_values=False)  # fmt: skip
    return dict(found.lazy().collect_schema())


def passage_rows(
    frame: pl.LazyFrame,
    rule: DocumentRule,
    *,
    keys: list[str],
    item: str,
    score: str,
    policy: Policy,
) -> pl.LazyFrame:
    """The run's columns checked and renamed: keys, item, `SCORE` (Float64), `DOCUMENT`, and
    `INDEX` (``"first"``) and `ROW` (``ties="input_order"``) where they are read."""
    required = dict.fromkeys(keys, "a group key")
    required |= {item: "the passage id", score: "the passage's score (higher first)"}
    if rule.passage_index is not None:
        required[rule.passage_index] = "the passage's position in its document"
    for name, value in (("item", item), ("score", score)):
        if value in keys:
            raise ValueError(f"{name}={value!r} is also a group_by key; they must differ")
    schema = require_columns(frame, "run", required)
    show = list(required)
    check_numeric(frame, "run", score, schema[score], "a score", show)
    if rule.passage_index is not None:
        index = rule.passage_index
        check_numeric(frame, "run", index, schema[index], "a passage position", show)
    if policy.ties == "input_order":
        frame = frame.with_row_index(ROW)
    columns = [*keys, item, ranking.score_value(pl.col(score)).alias(SCORE)]
    if rule.passage_index is not None:
        columns.append(pl.col(rule.passage_index).alias(INDEX))
    if policy.ties == "input_order":
        columns.append(pl.col(ROW))
    return with_document(frame.select(columns), rule.document, table="run", item=item, show=show)


def check_passages(
    rows: pl.LazyFrame,
    rule: DocumentRule,
    *,
    keys: list[str],
    item: str,
    score: str,
    policy: Policy,
) -> None:
    """Every value check in one scan of `rows`, refused naming the column and a row."""
    named = _value_checks(rows, rule, keys=keys, item=item, score=score, policy=policy)
    checks = [(condition, message) for _, condition, message in named]
    refuse_first(rows, "run", checks, _shown(keys, item, score, rule.passage_index))


def _value_checks(
    rows: pl.LazyFrame,
    rule: DocumentRule,
    *,
    keys: list[str],
    item: str,
    score: str,
    policy: Policy,
) -> list[tuple[str, pl.Expr, str]]:
    """(name, bad-row condition, what it means) of every value check, in the order they are
    refused; the names of those the kernel makes in its scan are its own (`KernelRefusal`)."""
    checks = [
        (f"null_key:{j}", pl.col(key).is_null(), f"column {key!r} (a group key) must not be null")
        for j, key in enumerate(keys)
    ]
    names = ("null_item", "empty_document") if isinstance(rule.document, str) else ("", "")
    checks += [
        (name, condition, f"column {item!r} {meaning}")
        for name, (condition, meaning) in zip(
            names, document_checks(rows, rule.document, item=item), strict=True
        )
    ]
    if policy.invalid_scores == "error":
        is_invalid = ~ranking.is_valid_score(pl.col(SCORE))
        checks.append(("invalid_score", is_invalid, INVALID_SCORE.format(score=score)))
    if policy.duplicates == "error":
        checks.append(("", pl.len().over([*keys, item]) > 1, REPEATED.format(item=item)))
    if rule.passage_index is not None:
        index = rule.passage_index
        at_one_position = [*keys, DOCUMENT, INDEX]
        # Copies of one passage kept under duplicates="keep" share its position: which is first?
        shared = pl.len() if policy.duplicates == "keep" else pl.col(item).n_unique()
        checks += [
            ("", pl.col(INDEX).is_null(), f"column {index!r} must not be null"),
            (
                "",
                pl.col(INDEX).is_not_null() & (shared.over(at_one_position) > 1),
                f"column {index!r} must tell a document's passages apart (aggregate='first' "
                f"takes the one at the lowest position), but two of one document share one",
            ),
        ]
    return checks


def _kernel_collected(
    ranked: pl.LazyFrame,
    rows: pl.LazyFrame,
    rule: DocumentRule,
    *,
    keys: list[str],
    item: str,
    score: str,
    policy: Policy,
) -> pl.DataFrame:
    """The kernel's documents collected; the rows its value checks refused worded as
    `check_passages` words them (the first check that fails, its count and first row)."""
    from polars_rankk.core.kernel.documents import refusal_of

    try:
        return ranked.collect()
    except pl.exceptions.ComputeError as error:
        refused, failure = refusal_of(error), error
    if refused is None:
        raise failure
    for name, _, message in _value_checks(rows, rule, keys=keys, item=item, score=score,
                                         policy=policy):  # fmt: skip
        if name in refused.rows:
            count, first = refused.rows[name]
            shown = _shown(keys, item, score, rule.passage_index)
            refuse("run", message, count, rows.slice(first, 1).select(shown))
    raise failure


def _shown(keys: list[str], item: str, score: str, index: str | None) -> list[pl.Expr]:
    """The columns an offending row is shown with, under the run's own names."""
    named = [*keys, item, score, *([index] if index is not None else [])]
    shown = [pl.col(key) for key in keys]
    shown += [pl.col(item), shown_document(named), pl.col(SCORE).alias(score)]
    return shown + ([pl.col(INDEX).alias(index)] if index is not None else [])


def ranked_documents(
    rows: pl.LazyFrame,
    rule: DocumentRule,
    *,
    keys: list[str],
    item: str,
    score: str,
    policy: Policy,
) -> pl.LazyFrame:
    """One row per (group, document), in rank order, cut at the rule's depth."""
    rows = valid_scores(rows, policy)
    if policy.duplicates == "first" and rule.aggregate != "max":
        rows = _best_copies(rows, keys, item)
    aggregations = [_document_score(rule).alias(SCORE)]
    if ROW in rows.collect_schema():
        aggregations.append(pl.col(ROW).min())
    documents = rows.group_by([*keys, DOCUMENT]).agg(aggregations)
    order, descending = _document_order(policy)
    documents = documents.sort(
        [*keys, *order], descending=[False] * len(keys) + [descending] * len(order)
    )
    if rule.depth is not None:
        documents = documents.filter(_within_depth(rule.depth, keys, policy))
    return documents.select(*keys, pl.col(DOCUMENT).alias(item), pl.col(SCORE).alias(score))


def kernel_documents(
    run: pl.LazyFrame,
    rule: DocumentRule,
    *,
    keys: list[str],
    item: str,
    score: str,
    policy: Policy,
    check_values: bool = False,
) -> pl.LazyFrame | None:
    """MaxP by a delimiter on the compiled kernel: each group's passages read in place, a
    document named by its passages' ids up to the delimiter, its best passage's score
    standing for it — `ranked_documents`' rows, without cutting every id or grouping by
    document; with `check_values`, the values checked in the kernel's scan (`_value_checks`'
    names). `run` is the run as given, its columns checked (`passage_rows`): its scores are
    read as they are (the kernel folds -0.0 into 0.0 itself). None where the kernel does not
    apply (another rule or policy, a dtype it does not read, not loaded)."""
    if (
        rule.aggregate != "max"
        or not isinstance(rule.document, str)
        or policy.duplicates != "first"
        or policy.invalid_scores not in ("drop", "error")
        or policy.ties == "input_order"
        or policy.ties in RELEVANCE_AWARE_TIES
    ):
        return None
    from polars_rankk.core.kernel.documents import maxp_documents

    ranked = maxp_documents(
        run, keys, item, pl.col(score), policy,
        delimiter=rule.document, depth=rule.depth, check_values=check_values,
    )  # fmt: skip
    if ranked is None:
        return None
    return ranked.select(*keys, item, pl.col("score").alias(score))


def valid_scores(rows: pl.LazyFrame, policy: Policy) -> pl.LazyFrame:
    """`Policy.invalid_scores` applied (``"error"`` was checked)."""
    if policy.invalid_scores == "drop":
        return rows.filter(ranking.is_valid_score(pl.col(SCORE)))
    if policy.invalid_scores == "lowest":
        return rows.with_columns(ranking.lowest_if_invalid(pl.col(SCORE)).alias(SCORE))
    return rows


def _best_copies(rows: pl.LazyFrame, keys: list[str], item: str) -> pl.LazyFrame:
    """Each (group, passage) once, at its highest score (``duplicates="first"``, as
    `evaluate` keeps an item's best copy); its position and input row those of that copy."""
    schema = rows.collect_schema()
    best = pl.struct(-pl.col(SCORE), *([pl.col(ROW)] if ROW in schema else []))
    kept = [pl.col(c).min_by(best) for c in (DOCUMENT, INDEX, ROW) if c in schema]
    return rows.group_by([*keys, item]).agg(pl.col(SCORE).max(), *kept)


def _document_score(rule: DocumentRule) -> pl.Expr:
    """A document's score from its passages' (`SCORE`) rows."""
    scores = pl.col(SCORE)
    if rule.aggregate == "max":
        return scores.max()
    if rule.aggregate == "first":
        return scores.sort_by(INDEX).first()
    if rule.aggregate == "mean":
        return scores.mean()
    if rule.aggregate == "sum":
        return scores.sum()
    assert rule.top is not None
    return scores.top_k(rule.top).mean()


def _document_order(policy: Policy) -> tuple[list[pl.Expr], bool]:
    """The Policy's order of documents: score, then its tie order (documents stand in for
    items; a document's input row is its earliest passage's). The orders that read relevance
    keep a fixed order here (document id ascending): `evaluate` orders the tie itself."""
    row = pl.col(ROW) if policy.ties == "input_order" else None
    if policy.ties in RELEVANCE_AWARE_TIES:
        return [-pl.col(SCORE), pl.col(DOCUMENT)], False
    return ranking.tie_order(policy, pl.col(SCORE), pl.col(DOCUMENT), None, row)


def _within_depth(depth: int, keys: list[str], policy: Policy) -> pl.Expr:
    """Rows (in rank order) within each group's first `depth`; under a tie order that reads
    relevance, the whole tie at the cut."""
    position = pl.int_range(pl.len()).over(keys)
    if policy.ties not in RELEVANCE_AWARE_TIES:
        return position < depth
    lowest_kept = pl.col(SCORE).head(depth).min().over(keys)
    return pl.col(SCORE) >= lowest_kept


def _warn_kept_ties(
    documents: pl.DataFrame, rule: DocumentRule, keys: list[str], policy: Policy
) -> None:
    if rule.depth is None or policy.ties not in RELEVANCE_AWARE_TIES:
        return
    count = "_rk_documents"
    sizes = documents.group_by(keys).agg(pl.len().alias(count))
    over = sizes.filter(pl.col(count) > rule.depth)
    if over.height:
        most = over.select(pl.col(count).max()).item()
        warnings.warn(
            f"to_documents: depth={rule.depth} cuts a tie of document scores in "
            f"{over.height} group(s), e.g. {over.drop(count).row(0, named=True)}; under "
            f"ties={policy.ties!r} the order inside a tie reads relevance, unknown here, so "
            f"the tie is kept whole ({most} documents at most)",
            DepthTieWarning,
            stacklevel=3,
        )
