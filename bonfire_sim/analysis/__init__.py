"""Balance analysis above the engine: fork-based (interventional) task and gnome values,
start-player compensation, FDR-controlled flags and paired run comparisons."""
