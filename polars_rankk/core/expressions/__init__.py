"""Metric expressions (plugin and pure), the generated module of one function per metric,
and the `rankk` namespaces."""
