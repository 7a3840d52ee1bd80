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
    # several flagged gnomes are listed in the components' order, not as strings
    many = pd.DataFrame({"gnome": ["S15", "E2", "S4"], "players": [4, 4, 4],
                         "flag": ["strong"] * 3, "status": ["measured"] * 3, "who": ["t"] * 3})
    by = {"gnomes": {"data": {"by_setting": [("default game", {"gnomes": many})]}}}
    assert FS.gnome_card(by)["print"].startswith("S4, S15, E2:")


def _tasks() -> pd.DataFrame:
    # R3 flagged at each count; Y22 flagged at none but by the test across the counts
    rows = []
    for card, printed, surplus, flag, across in (("R3", 5, 4.5, "strong", "strong"),
                                                 ("Y22", 6, -1.8, "", "weak"),
                                                 ("B13", 4, 0.2, "", "")):
        for n in (2, 3, 4):
            rows.append({"task": card, "players": n, "printed": printed, "surplus": surplus,
                         "s_lo": surplus - 0.6, "s_hi": surplus + 0.6, "half": 0.6,
                         "flag": flag, "flag_counts": across, "status": "measured",
                         "slope": 1.0, "price_note": "", "n": 300, "deals": 100,
                         "forks_needed": 50.0, "kind": "task", "text": "a task",
                         "who": "tuned"})
    return pd.DataFrame(rows)


def test_the_task_answer_lists_the_tasks_the_first_screen_re_prices():
    # The example report's card printed R3 and Y22 while its answer listed R3 alone: a
    # task flagged only across the counts was missing from the answer's list.
    from bonfire_sim.report.answers import task_answer

    tv = _tasks()
    c = FS.task_card({"tasks": {"data": {"by_setting": [("default game", {"tasks": tv})]}}},
                     1.0)
    assert c["print"].startswith("R3 5→") and "Y22 6→" in c["print"]
    text = task_answer(tv, "default game", False)[0]["text"]
    assert "2 task(s) are flagged" in text and "Y22 prints 6" in text, text
    assert "weak across the counts" in text and "B13 prints" not in text


def test_the_sheets_gnome_card_says_brought_within_only_of_verified_changes():
    # The example sheet said "3 change(s) tried on fresh deals bring them within the
    # margin" above three lines marked "not resolved".
    from bonfire_sim.report.answer_cards import gnome_card

    def line(item: str, verified: bool | None) -> dict:
        return {"item": item, "changed": True, "reason": "", "verified": verified,
                "proposed": f"{item}: +2 -> +1 points", "who": "tuned"}

    open_ = gnome_card({"gnomes": [line("S4", None), line("S16", None)]})
    assert "none verified yet" in open_["headline"] and "within the margin" not in open_["headline"]
    one = gnome_card({"gnomes": [line("S4", True), line("S16", None)]})
    assert "1 verified within the margin" in one["headline"]


def test_the_first_screen_says_where_the_sheets_lists_differ_from_the_sections():
    # The example's cards (from the sheet) changed S16, S20, S4 while its gnome section
    # flagged S16, S4, S15, S19, S27 from its own forks, with no word of why.
    g = pd.DataFrame({"gnome": ["S4", "S19", "S20", "S7"], "players": [2, 2, 2, 2],
                      "flag": ["strong", "strong", "", ""], "status": ["measured"] * 4,
                      "flag_counts": ["", "", "", "strong"]})  # the section ignores S7's
    by_id = {"gnomes": {"data": {"by_setting": [("default game", {"gnomes": g})]}},
             "tasks": {"data": {"by_setting": [("default game", {"tasks": _tasks()})]}}}
    sheet = {"gnomes": [{"item": "S20", "changed": True}, {"item": "S4", "changed": True}],
             "tasks": [{"item": "R3", "changed": True}, {"item": "Y22", "changed": True}],
             "unchanged": []}
    note = FS._lists_differ(by_id, sheet)
    assert "gnomes: S4, S19 in the sections below, S4, S20 on the sheet" in note, note
    assert "tasks" not in note  # the same two tasks on both
    sheet["gnomes"] = [{"item": "S19", "changed": False, "reason": "no price fixes it"},
                       {"item": "S4", "changed": True}]
    assert FS._lists_differ(by_id, sheet) == ""


def test_a_figure_that_rounds_to_zero_has_no_minus_sign():
    from bonfire_sim.report.answer_cards import interval

    assert interval({"value": -0.04, "lo": -0.7, "hi": 0.6}, "points") == (
        "+0.0 points (-0.7 to +0.6)")


def test_the_first_screens_task_card_names_a_card_no_print_fixes_apart():
    # Y8 printed 7, +16 over its tier at a slope of 1: its fair print lies below the
    # lowest print 1, so "Y8 7→1" alone would read as a fix; the card says to change the
    # condition instead (as the errata sheet's card does)
    tv = _tasks()
    y8 = tv[tv["task"] == "R3"].assign(task="Y8", printed=7, surplus=16.0, s_lo=15.4, s_hi=16.6)
    c = FS.task_card({"tasks": {"data": {"by_setting": [("default game",
                                                         {"tasks": pd.concat([tv, y8])})]}}},
                     1.0)
    assert "change the condition of Y8 (7→1)" in c["print"], c["print"]
    assert c["print"].startswith("R3 5→") and "Y8 7→1," not in c["print"]
