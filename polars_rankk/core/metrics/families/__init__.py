"""The built-in metric declarations, by family; `polars_rankk.core.metrics.registry` joins them."""
