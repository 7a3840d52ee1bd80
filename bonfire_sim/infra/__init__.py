"""Infrastructure every layer may use: atomic files, progress, engine fingerprints, the
kernel cache, path containment, signed state, run ownership, workers and the dask cluster."""
