"""Beyond accuracy, per group: computed from the top-K items and item tables, not from
relevance; asked for by name."""

from __future__ import annotations

from polars_rankk.core.metrics.declaration import Metric

__all__ = ["METRICS"]

METRICS: tuple[Metric, ...] = (
    Metric(
        name="novelty",
        title="Novelty@K",
        definition="mean self-information -log2(share of interactions) of the top K items "
        "(an item the popularity log never saw counts as seen once)",
        citation="Zhou et al., PNAS 107(10) 2010; Vargas & Castells, RecSys 2011",
        kind="beyond_accuracy",
        requires=("popularity",),
    ),
    Metric(
        name="arp",
        title="ARP@K",
        definition="average recommendation popularity: mean interaction count of the top K items",
        citation="Abdollahpouri, Burke & Mobasher, FLAIRS 2019 (ARP)",
        kind="beyond_accuracy",
        # A popularity bias: smaller is better (RecBole's AveragePopularity, smaller=True).
        direction="lower",
        requires=("popularity",),
    ),
    Metric(
        name="long_tail_share",
        title="Long-tail share@K",
        definition="share of the top K outside the head: the most popular items that make up "
        "head_share (default 20%) of interactions, tied counts on one side",
        citation="Abdollahpouri, Burke & Mobasher, FLAIRS 2019 (APLT)",
        kind="beyond_accuracy",
        requires=("popularity",),
    ),
    Metric(
        name="intra_list_diversity",
        title="ILD@K",
        definition="mean cosine distance 1 - cos(u_i, u_j) over pairs of the top K items "
        "(labels as multi-hot vectors, or an embedding)",
        citation="Ziegler, McNee, Konstan & Lausen, WWW 2005",
        kind="beyond_accuracy",
        requires=("item_features",),
    ),
)
