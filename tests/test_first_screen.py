"""The report's first screen answers for one setting: it never pools the rows of two
populations (other players, variants or overrides) into one printed answer."""

from __future__ import annotations

import pandas as pd

from bonfire_sim.report import first_screen as FS


def _gnomes(flagged: str, who: str) -> pd.DataFrame:
    return pd.DataFrame({"gnome": ["S4", "S15"], "players": [4, 4],
                         "flag": ["strong" if g == flagged else "" for g in ("S4", "S15")],
                         "status": ["measured", "measured"], "who": [who, who]})


def test_the_gnome_card_answers_for_the_first_setting_only():
    by_id = {"gnomes": {"data": {"by_setting": [
        ("default game", {"gnomes": _gnomes("", "tuned_portal, tuned_planner")}),
        ("players = portal, planner", {"gnomes": _gnomes("S4", "portal, planner")})]}}}
    c = FS.gnome_card(by_id)
    assert "S4" not in c["print"] and c["print"] == "nothing"  # the other setting's flag
    assert "answered for default game" in c["who"] and "1 other setting" in c["who"]
    # the same rows as the only setting: the flag is the answer
    alone = {"gnomes": {"data": {"by_setting": [
        ("players = portal, planner", {"gnomes": _gnomes("S4", "portal, planner")})]}}}
    assert FS.gnome_card(alone)["print"].startswith("S4")
