"""MkDocs hooks (``mkdocs.yml`` -> ``hooks``): the pages generated from the code.

* ``reference/cli/<name>.md`` for every command in ``bonfire_sim.cli.commands.COMMANDS``
  (mkdocs-click renders the click command itself), so a new command gets its page and its
  nav entry without anyone writing one;
* ``reference/weights.md`` from ``bonfire_sim.strategies.weights.WEIGHTS`` and each style's
  ``DEFAULTS``;
* ``examples/<notebook>.md`` from ``examples/*.ipynb`` with their stored outputs
  (nbconvert's Markdown exporter; the notebooks are executed by ``tests/test_examples.py``).

Generated pages exist only in the build, never in ``docs/``, so they cannot go stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CLI_SECTION = "Command line"      # the nav section (under "Reference") the pages fill
EXAMPLES_SECTION = "Notebooks"


def cli_pages() -> dict[str, str]:
    """``reference/cli/<name>.md`` -> page text, one per registered command."""
    from bonfire_sim.cli.commands import COMMANDS

    pages = {}
    for name, target in sorted(COMMANDS.items()):
        module, attr = target.split(":")
        pages[f"reference/cli/{name}.md"] = (
            "::: mkdocs-click\n"
            f"    :module: {module}\n"
            f"    :command: {attr}\n"
            f"    :prog_name: bonfire-sim {name}\n"
            "    :style: table\n\n"
            f"*Generated from the command itself: `bonfire-sim {name} --help` prints the "
            "same.*\n")
    return pages


def weights_page() -> str:
    """The evaluator's weight names, base values and meanings, and each style's changes."""
    from bonfire_sim.strategies import STYLES
    from bonfire_sim.strategies.weights import WEIGHTS

    lines = ["# Evaluator weights", "",
             "Generated from `strategies/evaluate.py` (`WEIGHTS`) and each style's `DEFAULTS`. "
             "A weight file (`style@my.toml`, `name = value` or a `[weights]` table) changes "
             "any of them; names not in the file keep the style's values.", "",
             "| weight | base value | meaning |", "| --- | ---: | --- |"]
    for name, (value, meaning) in WEIGHTS.items():
        lines.append(f"| `{name}` | {value:g} | {meaning.replace('|', '/')} |")
    lines += ["", "## Each style's changes from the base row", "",
              "| style | weights it sets |", "| --- | --- |"]
    for style in STYLES:
        changes = ", ".join(f"`{k}` = {v:g}" for k, v in getattr(style, "DEFAULTS", {}).items())
        lines.append(f"| `{style.NAME}` | {changes or '(the base row)'} |")
    return "\n".join(lines) + "\n"


def notebook_pages() -> dict[str, str]:
    """``examples/<stem>.md`` -> the notebook with its stored outputs, as Markdown."""
    import nbformat
    from nbconvert import MarkdownExporter

    exporter = MarkdownExporter()
    pages = {}
    for path in sorted(EXAMPLES.glob("*.ipynb")):
        body, _ = exporter.from_notebook_node(nbformat.read(path, as_version=4))
        note = (f"*Rendered from `examples/{path.name}` with the outputs stored in it; "
                "`tests/test_examples.py` runs it and checks its answer.*\n\n")
        pages[f"examples/{path.stem}.md"] = note + body
    return pages


def _generated() -> dict[str, str]:
    pages = {**cli_pages(), **notebook_pages()}
    pages["reference/weights.md"] = weights_page()
    return pages


def _fill(nav: list[Any], section: str, entries: list[dict[str, str]]) -> bool:
    """Replace the (empty) list of the nav section titled ``section`` by ``entries``."""
    for item in nav:
        if isinstance(item, dict):
            for title, value in item.items():
                if title == section and isinstance(value, list):
                    value[:] = entries
                    return True
                if isinstance(value, list) and _fill(value, section, entries):
                    return True
    return False


def on_config(config: Any) -> Any:
    """Put one nav entry per command and per notebook into their (empty) sections."""
    nav = config["nav"] or []
    cli = [{f"bonfire-sim {Path(p).stem}": p} for p in cli_pages()]
    notebooks = [{p.stem.replace("_", " "): f"examples/{p.stem}.md"}
                 for p in sorted(EXAMPLES.glob("*.ipynb"))]
    for section, entries in ((CLI_SECTION, cli), (EXAMPLES_SECTION, notebooks)):
        if not _fill(nav, section, entries):
            raise ValueError(f"mkdocs.yml's nav has no (empty) section {section!r}")
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the build."""
    from mkdocs.structure.files import File

    for uri, text in _generated().items():
        files.append(File.generated(config, uri, content=text))
    return files
