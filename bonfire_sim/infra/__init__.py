"""Infrastructure every layer may use: atomic files, progress, engine fingerprints, the
kernel cache, path containment, signed state, run ownership, workers and the dask cluster."""

# Where worker processes run (``workers.using``): here, so that the command line can offer
# them as choices without importing the worker machinery (joblib) for every command.
BACKENDS = ("loky", "dask")
