"""The built-in metrics, one module per family, each contributing its tuple of `Metric`s (and
the terms it brings).

`polars_rankk.core.metrics.registry` assembles `REGISTRY` from them, family by family, in
canonical order. A new family is one module here and one line in the registry's `FAMILIES`.
"""
