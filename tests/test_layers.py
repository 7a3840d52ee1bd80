"""The package's shape: layers import only downward, no module imports itself round a
cycle, no module is over the size a reader can hold.

The import graph is read from the source (``ast``), function-local imports included: a
lazy import still ties two modules together.  ``from pkg import submodule`` is an edge to
the submodule only, and imports under ``if TYPE_CHECKING:`` do not count (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "bonfire_sim"

# Lower rank = lower layer.  A module may import modules of its own rank or below.
RANKS = {
    "errors": 0, "infra": 0,
    "rules": 1,
    "config": 2, "engine": 2, "catalog": 2, "lineup": 2,
    "strategies": 3,
    "sim": 4,
    "analysis": 5,
    "studies": 6,
    "report": 7,
    "pipelines": 8,
    "api": 9,
    "cli": 10, "__main__": 10,
}
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for f in PKG.rglob("*.py"):
        parts = f.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                lines.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return lines


def import_graph() -> dict[str, set[str]]:
    """{module: modules of this package it imports}."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, f in mods.items():
        tree = ast.parse(f.read_text())
        skip = _type_checking_lines(tree)
        is_pkg = f.name == "__init__.py"
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                subs = [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in mods]
                targets = subs + ([module] if len(subs) < len(node.names) else [])
            else:
                continue
            graph[name].update(t for t in targets if t in mods and t != name)
    return graph


def rank(module: str) -> int | None:
    """The layer of a module (None: the package itself, which only re-exports)."""
    parts = module.split(".")
    return None if len(parts) == 1 else RANKS.get(parts[1])


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_belongs_to_a_layer():
    unplaced = [m for m in _modules() if m != "bonfire_sim" and rank(m) is None]
    assert not unplaced, f"modules in no layer (add them to a room or to RANKS): {unplaced}"


def test_layers_import_only_downward():
    upward = sorted(f"{a} -> {b}" for a, bs in import_graph().items() for b in bs
                    if rank(a) is not None and rank(b) is not None and rank(b) > rank(a))
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("f", sorted(PKG.rglob("*.py")), ids=lambda f: str(f.relative_to(PKG)))
def test_no_module_is_over_the_size_a_reader_can_hold(f):
    n = len(f.read_text().splitlines())
    assert n <= MAX_LINES, f"{f.relative_to(PKG)} has {n} lines (split it by what it holds)"
