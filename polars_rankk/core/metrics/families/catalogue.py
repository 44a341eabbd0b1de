"""Beyond accuracy over the catalogue: one figure from every top-K list; asked for by name."""

from __future__ import annotations

from polars_rankk.core.metrics.declaration import Metric

__all__ = ["METRICS"]

METRICS: tuple[Metric, ...] = (
    Metric(
        name="coverage",
        title="Coverage@K",
        definition="share of the catalogue in at least one top-K list",
        citation="Ge, Delgado-Battenfeld & Jannach, RecSys 2010 (catalog coverage)",
        kind="catalogue",
    ),
    Metric(
        name="gini",
        title="Gini@K",
        definition="Gini index of the catalogue's top-K exposure counts, unexposed items included",
        citation="Fleder & Hosanagar, Management Science 55(5) 2009; RecBole GiniIndex",
        kind="catalogue",
        # Concentration of exposure, 0 when every item is shown equally often: smaller is
        # better (RecBole's GiniIndex, smaller=True).
        direction="lower",
    ),
    Metric(
        name="entropy",
        title="Entropy@K",
        definition="Shannon entropy (bits) of the catalogue's top-K exposure shares",
        citation="Shani & Gunawardana, Recommender Systems Handbook (2011), §8.3.3",
        kind="catalogue",
    ),
    Metric(
        name="personalization",
        title="Personalization@K",
        definition="1 - mean over pairs of lists of |L_u ∩ L_v| / K, from per-item exposure "
        "counts (sum of c(c - 1)/2 shared pairs)",
        citation="Zhou et al., PNAS 107(10) 2010 (personalization, 1 - mean overlap)",
        kind="catalogue",
    ),
)
