"""What a contributor edits for a metric: the ranking order, the rows a term reads, the
term table, the formulas, the declarations and the registry."""
