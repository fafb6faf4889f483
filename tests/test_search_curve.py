"""The curve of the search over ppo: duplicate hands, a run that resumes, the summary and its plot."""

import json

import pytest

from experiments import search_curve as S


def test_every_deal_is_played_once_per_seat_and_a_rerun_plays_only_what_is_missing(tmp_path):
    out = tmp_path / "hands.jsonl"
    args = S.Args(num_players=2, determinizations=(2, 3), deals=2, out=str(out), progress=False)
    result = S.play(args)
    rows = S.read_rows([out])
    assert sorted(S.key(r) for r in rows) == [
        ("ppo_search", d, deal, seat) for d in (2, 3) for deal in (0, 1) for seat in (0, 1)
    ]
    assert all(r["decisions"] > 0 and r["seconds"] > 0 for r in rows)
    assert [p["hands"] for p in result["points"]] == [4, 4]
    for point in result["points"]:
        assert point["duplicate"][0] == 2  # both deals at both seats
    again = S.play(args)
    assert again["points"] == [] and S.read_rows([out]) == rows  # nothing left to play


def test_the_summary_gives_wilson_and_duplicate_intervals_and_draws_the_curve(tmp_path):
    rows = [
        {
            "searcher": name,
            "determinizations": 8,
            "deal": deal,
            "seats": [seat],
            "num_players": 2,
            "won": won,
            "decisions": 10,
            "seconds": 1.0,
        }
        for name, deals in (("a", [(1, 1), (1, 0), (0, 1), (1, 0)]), ("b", [(1, 1)]))
        for deal, results in enumerate(deals)
        for seat, won in enumerate(results)
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plot = tmp_path / "curve.png"
    summary = S.play(S.Args(num_players=2, summary=(str(path),), plot=str(plot)))
    point, other = summary["points"]  # a curve per searcher
    assert (point["searcher"], other["searcher"], other["hands"], other["win_rate"][0]) == ("a", "b", 2, 1.0)
    assert point["hands"] == 8 and point["win_rate"][0] == pytest.approx(5 / 8)
    assert point["win_rate"][1] < 5 / 8 < point["win_rate"][2]
    count, mean, low, high = point["duplicate"]
    assert (count, mean) == (4, pytest.approx(5 / 8))  # deal means 1, 0.5, 0.5, 0.5
    assert high - mean == pytest.approx(1.96 * 0.25 / 2)  # their standard deviation is 0.25
    assert point["ratio"][0] == pytest.approx(5 / 4) and point["seconds_per_decision"] == pytest.approx(0.1)
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_bad_settings_are_refused(capsys):
    assert S.main(["--deals", "0"]) == 2
    assert "--deals" in capsys.readouterr().err
    assert S.main(["--summary", "/nonexistent.jsonl"]) == 2
