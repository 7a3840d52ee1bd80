"""The documentation builds without a warning and keeps its promises.

``mkdocs build --strict`` fails on a broken link, a missing page or a page left out of the
nav; the generated pages (one per CLI command, the weights table, the notebooks) are
checked against the code they come from.  The README stays a guide: short, the two
commands first, a recipe per question, no dated study blocks, one player recommendation.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from bonfire_sim.cli.commands import COMMANDS
from bonfire_sim.cli.main import load_command

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
QUESTIONS = ("start-player advantage", "tasks are mispriced", "gnomes are strong",
             "hard is Tom")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # No ``-q``: with it mkdocs drops the warnings before strict mode counts them, and the
    # build "passes" with pages left out of the nav or links to missing anchors.
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                          "-d", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    log = res.stdout + res.stderr
    assert res.returncode == 0, log
    assert not build_warnings(log), "\n".join(build_warnings(log))
    return out


def build_warnings(log: str) -> list[str]:
    """The WARNING (and ERROR) lines of a mkdocs build log."""
    return [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]


def test_the_warning_parser_sees_what_strict_mode_counts() -> None:
    log = ("INFO    -  Cleaning site directory\n"
           "WARNING -  Doc file 'a.md' contains a link 'b.md#x', but ... anchor '#x'.\n"
           "INFO    -  Documentation built in 1.0 seconds\n")
    assert build_warnings(log) == [log.splitlines()[1]]
    assert build_warnings("INFO    -  Building documentation...\n") == []


def _text(page: Path) -> str:
    """A built page's visible text (tags dropped, entities decoded)."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))


def test_the_docs_build_strict_and_have_every_section(site: Path) -> None:
    for page in ("howto/questions", "howto/start-player", "howto/task-values", "howto/gnomes",
                 "howto/tom", "howto/reprice-card", "howto/seat-compensation", "howto/sweep",
                 "howto/ci-balance-check", "howto/view", "howto/cluster",
                 "howto/plugin-player", "data-dictionary", "reference/weights",
                 "explanation/engine", "explanation/values", "explanation/statistics",
                 "explanation/players", "explanation/variants", "explanation/performance",
                 "findings"):
        assert (site / page / "index.html").is_file(), page


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_cli_command_has_a_generated_reference_page(site: Path, name: str) -> None:
    page = site / "reference" / "cli" / name / "index.html"
    assert page.is_file(), f"no reference page for {name}"
    text = _text(page)
    command = load_command(COMMANDS[name])
    assert f"bonfire-sim {name}" in text
    assert (command.help or "").split("\n")[0].strip() in text
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.opts[0] in text, f"{name}: {param.opts[0]} missing from its page"


def test_the_weights_page_lists_every_weight(site: Path) -> None:
    from bonfire_sim.strategies.weights import WEIGHTS

    text = _text(site / "reference" / "weights" / "index.html")
    assert all(f" {w} " in text for w in WEIGHTS)


def test_every_notebook_is_rendered_with_its_stored_outputs(site: Path) -> None:
    notebooks = sorted((ROOT / "examples").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        page = site / "examples" / path.stem / "index.html"
        assert page.is_file(), path.name
        nb = json.loads(path.read_text(encoding="utf-8"))
        printed = [line for c in nb["cells"] for o in c.get("outputs", [])
                   if o["output_type"] == "stream" for line in "".join(o["text"]).splitlines()]
        assert printed, f"{path.name} has no stored printed answer"
        assert printed[-1].strip() in _text(page), path.name


def test_the_readme_is_a_guide() -> None:
    lines = README.splitlines()
    assert len(lines) <= 300, f"README has {len(lines)} lines"
    first_block = README.split("```")[1]
    assert "make demo" in first_block and "make test" in first_block
    prose = re.sub(r"\]\([^)]*\)", "]", README)  # link targets may name dated findings pages
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", prose), "a dated study block in the README"
    sections = re.split(r"^### ", README, flags=re.M)
    for question in QUESTIONS:
        recipe = next((s for s in sections if question in s.split("\n")[0]), None)
        assert recipe is not None, f"no recipe for {question!r}"
        assert "```sh" in recipe and "```python" in recipe and "*Reading it*" in recipe


def test_the_readmes_links_point_at_files() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).is_file(), target


def test_the_commands_the_readme_calls_long_take_quiet() -> None:
    sentence = re.search(r"The long commands \(([^)]*)\)", README)
    assert sentence, "the README's sentence on long commands moved"
    names = re.findall(r"`([a-z]+)`", sentence.group(1))
    assert len(names) >= 5
    for name in names:
        command = load_command(COMMANDS[name])
        # A group (bench) is long in its subcommands: each that plays or forks takes
        # --quiet; `bench manifest` only hashes a file and prints, so it is left out.
        subs = getattr(command, "commands", None)
        checked = ({f"{name} {k}": c for k, c in subs.items() if k != "manifest"} if subs
                   else {name: command})
        for shown, cmd in checked.items():
            options = {o for p in cmd.params for o in p.opts}
            assert "--quiet" in options, f"{shown} lacks --quiet"


def _strategies_in_toml(path: Path) -> tuple[int, list[str]]:
    import tomllib

    run = tomllib.loads(path.read_text(encoding="utf-8")).get("run", {})
    return run.get("players", 4), list(run.get("strategies", []))


def test_one_recommendation_everywhere() -> None:
    """`tuned` for 2-4 players and the recommended solo player (``lineup.RECOMMENDED_SOLO``,
    one name in one place) solo: README, solo --help, experiments, notebooks."""
    from bonfire_sim.lineup import RECOMMENDED_SOLO

    assert f"`tuned` in every seat for 2-4 players and `{RECOMMENDED_SOLO}` alone" in README
    solo_help = " ".join(p.help or "" for p in load_command(COMMANDS["solo"]).params)
    assert RECOMMENDED_SOLO in solo_help and "the best fast style" not in solo_help
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        players, names = _strategies_in_toml(path)
        if names:
            assert names == ([RECOMMENDED_SOLO] if players == 1 else ["tuned"]), path.name
    for path in sorted((ROOT / "examples").glob("*.ipynb")):
        source = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                           if c["cell_type"] == "code")
        used = re.findall(r"strategies=\"([^\"]+)\"", source)
        assert used and set(used) <= {"tuned", RECOMMENDED_SOLO}, path.name


def _blocks(page: str, lang: str) -> list[str]:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_the_plugin_howto_runs_as_written(tmp_path: Path) -> None:
    """The page's module plays a game, and its batch commands run with it."""
    module = _blocks("howto/plugin-player.md", "python")[0]
    (tmp_path / "mybots.py").write_text(module, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    subprocess.run([sys.executable, "mybots.py"], cwd=tmp_path, env=env, check=True)
    for line in _blocks("howto/plugin-player.md", "sh")[0].strip().splitlines():
        args = line.split()
        assert args[0] == "PYTHONPATH=." and args[1] == "bonfire-sim"
        res = subprocess.run([sys.executable, "-m", "bonfire_sim", *args[2:], "--quiet"],
                             cwd=tmp_path, env=env, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "runs" / "mine" / "manifest.json").is_file()


def test_the_experiment_files_the_docs_show_are_valid(tmp_path: Path) -> None:
    """Every TOML block in the how-to and reference pages passes the experiment schema."""
    from bonfire_sim.pipelines.experiment import load_sweep

    pages = [p.relative_to(ROOT / "docs").as_posix()
             for p in sorted((ROOT / "docs").glob("*/*.md"))]
    blocks = [b for page in pages for b in _blocks(page, "toml") if "[run]" in b]
    assert len(blocks) >= 3
    for i, block in enumerate(blocks):
        path = tmp_path / f"block{i}.toml"
        path.write_text(block, encoding="utf-8")
        assert load_sweep(path), block


def test_the_readmes_answers_are_the_notebooks_stored_outputs() -> None:
    """Every number in a question's example answer appears in that question's notebook."""
    notebooks = {1: "start_player_advantage", 2: "y14_worth_5", 3: "s15_strength",
                 4: "tom_difficulty"}
    for number, stem in notebooks.items():
        section = re.search(rf"^### {number}\. (.*?)(?=^##)", README, flags=re.M | re.S)
        assert section, f"question {number} moved"
        blocks = re.findall(r"^```(\w*)\n(.*?)^```", section.group(1), flags=re.M | re.S)
        shown = [body for lang, body in blocks if not lang]
        assert len(shown) == 1, f"question {number} shows {len(shown)} answers"
        nb = json.loads((ROOT / "examples" / f"{stem}.ipynb").read_text(encoding="utf-8"))
        stored = " ".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get(
            "text/plain", "")) for c in nb["cells"] for o in c.get("outputs", []))
        for value in re.findall(r"-?\d+\.\d+", shown[0]):
            assert value in stored, f"question {number}: {value} is not in {stem}.ipynb"


def _command_lines(text: str) -> list[str]:
    """The ``bonfire-sim ...`` command lines of a page's ``sh`` blocks, continuations joined,
    comments, pipes and shell loops cut off."""
    lines = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            found = re.search(r"bonfire-sim (.*)", line.split(" # ")[0])
            if found and "$" not in found.group(1):
                lines.append(re.split(r"[|;]", found.group(1))[0].strip())
    return lines


def test_every_command_line_in_the_readme_and_docs_parses() -> None:
    import shlex

    docs = sorted((ROOT / "docs").rglob("*.md"))
    pages = [README] + [p.read_text(encoding="utf-8") for p in docs]
    checked = 0
    for line in (cmd for page in pages for cmd in _command_lines(page)):
        name, *args = shlex.split(line)
        if name not in COMMANDS:  # a command of another branch, until it lands here
            assert name in ("check", "view"), f"unknown command in the docs: {line}"
            continue
        command = load_command(COMMANDS[name])
        command.make_context(name, args)  # raises on a bad option or value
        checked += 1
    assert checked >= 20


def test_the_python_api_page_names_real_parameters() -> None:
    """Each ``bonfire_sim...name(args)`` row of the API page matches the function's signature."""
    import importlib
    import inspect

    page = (ROOT / "docs" / "reference" / "python-api.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(bonfire_sim[\w.]*)\.(\w+)\(([^)]*)\)`", page, flags=re.M)
    assert len(rows) >= 8
    for module, name, args in rows:
        target = getattr(importlib.import_module(module), name)
        params = inspect.signature(target).parameters
        for arg in (a.strip() for a in args.split(",")):
            arg = arg.split("=")[0].lstrip("*")
            if arg:
                assert arg in params, f"{module}.{name} has no parameter {arg!r}"


# A dotted name of the package's code in backticks (``analysis.cards.task_values``,
# ``bonfire_sim.report.stats.seat_advantage``); a trailing ``*`` is a family (``M_*``).
DOTTED = re.compile(r"`(bonfire_sim\.)?((?:analysis|report|sim|rules|strategies|studies|"
                    r"pipelines|cli|infra)(?:\.[A-Za-z_]\w*)+)(\*?)")
# A path of the package's code (``analysis/values.py``, ``bonfire_sim/report/stats.py``).
PATH = re.compile(r"`((?:bonfire_sim/)?(?:analysis|report|sim|rules|strategies|studies|"
                  r"pipelines|cli|infra)/[\w/]+\.py)`")


def _resolves(name: str) -> bool:
    """Whether ``bonfire_sim.<name>`` is a module or an attribute of one."""
    import importlib

    parts = f"bonfire_sim.{name}".split(".")
    for i in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_name_in_the_docs_is_where_the_docs_say() -> None:
    """A function or module that moved (``task_values`` from ``analysis.values`` to the
    card room, ``analysis.cards``) leaves no page naming its old place.  The findings are dated
    records of their day and keep the names of that day."""
    pages = [ROOT / "README.md", *(p for p in (ROOT / "docs").rglob("*.md")
                                   if "findings" not in p.relative_to(ROOT).parts)]
    stale, seen = [], 0
    for page in pages:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for prefix, name, family in DOTTED.findall(line):
                if family:  # M_*: the names that start so
                    continue
                if not prefix and name.startswith("strategies.") and (
                        ROOT / (name.replace(".", "/") + ".py")).exists():
                    continue  # the top-level strategies/ folder of examples
                seen += 1
                if not _resolves(name):
                    stale.append(f"{page.relative_to(ROOT)}:{n}: {name}")
            for path in PATH.findall(line):
                seen += 1
                if not any((base / path).exists() for base in (ROOT, ROOT / "bonfire_sim")):
                    stale.append(f"{page.relative_to(ROOT)}:{n}: {path}")
    assert seen >= 40 and not stale, "\n".join(stale)


def test_the_populations_page_names_each_population_as_the_code_defines_it():
    from bonfire_sim.strategies import POPULATIONS

    text = (ROOT / "docs" / "howto" / "populations.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| (.*) \|$", text,
                                                       re.M)}
    for name, seats in POPULATIONS.items():
        assert ", ".join(seats) in rows[name], (name, rows[name])
        if len(set(seats)) > 1:  # a mix is not one player "in every seat"
            assert "every seat" not in rows[name], (name, rows[name])


def test_the_sweep_page_defines_each_measure_as_the_response_page_does():
    from bonfire_sim.analysis.sweep import MEASURES

    text = (ROOT / "docs" / "howto" / "sweep.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)[:<>\w]*` \| (.*) \|$",
                                                       text, re.M)}
    # The report's wording of the surplus: "Surplus of the task: <definition>, engine forks"
    definition = MEASURES["surplus"][2].split(": ", 1)[1].split(", engine forks")[0]
    assert definition in " ".join(rows["surplus"].split()), rows["surplus"]
    assert "best other move" not in text


def test_the_rules_notes_describe_the_payment_and_the_specialist_20_reading_in_force():
    text = " ".join((ROOT / "docs" / "rules-notes.md").read_text(encoding="utf-8").split())
    assert "canonical payment" not in text  # replaced by the payer's choice (RULINGS 4)
    assert "**Specialist 20 with specialist 6**" in text
    assert "test_specialist_20_with_specialist_6_adds_its_gold_to_the_resource_chosen" in (
        (ROOT / "tests" / "rules" / "test_procession.py").read_text(encoding="utf-8"))
