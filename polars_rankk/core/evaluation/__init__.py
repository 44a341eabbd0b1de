"""What `evaluate` does, in order: prepare, views, aggregate, diagnostics, display,
`Evaluation`, the pipeline."""
