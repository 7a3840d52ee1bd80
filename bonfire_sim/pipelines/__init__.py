"""End-to-end pipelines over every layer: an experiment file (games, then the report) and
the sensitivity study of uncertain facts (games, then its own page)."""
