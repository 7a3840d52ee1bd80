"""greedy: the evaluator with its base weights; weights loadable from a TOML/JSON file."""

NAME = "greedy"
DESCRIPTION = "one-ply evaluator with base weights (override from a TOML/JSON file)"
PLAN = """Take the move with the highest one-ply value under the base weight row of
``bonfire_sim.strategies.weights.WEIGHTS``; ``weights_for("greedy", load_weights(path))`` swaps in
tuned weights without recompiling."""
DEFAULTS: dict[str, float] = {}
