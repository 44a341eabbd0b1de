"""Metric families: each module declares one family's metrics (and the terms they bring)."""
