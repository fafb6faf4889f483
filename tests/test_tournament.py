"""The tournament runner: schedules (seat balance, rotating partners R-VAR-ROTATE), the
statistics on tournaments with known outcomes, reproducibility, the command line."""

import json
import math
import os
from collections import Counter

import numpy as np
import pytest

from uno_env import arena as T
from uno_env.agents import Agent, register_agent
from uno_env.cli import tournament as CLI
from uno_env.engine import RuleConfig


class NeverOutAgent(Agent):
    """Test agent that can never win a hand: it plays its first legal card while it holds
    two or more, but with one card left it only draws (and keeps what it draws); it
    accepts every Wild Draw Four, lets exposed players go and names red. Every hand it
    plays is won by somebody else: a known outcome."""

    name = "neverout"

    def act(self, observation, mask):
        obs, legal = self.check(observation, mask)
        view = self.game.obs_spec.to_dict(obs)
        if view["hand_sizes"][0] >= 2:
            for action in np.flatnonzero(legal):
                if self.game.action_to_string(int(action)).startswith("play"):
                    return int(action)
        for text in ("draw", "pass", "accept", "color R"):
            action = self.game.string_to_action(text)
            if legal[action]:
                return action
        raise AssertionError("no draw, pass, accept or colour available")


def make_neverout(rules=None, seed=0, **options):
    return NeverOutAgent(rules, seed)


register_agent("neverout", make_neverout)


# ---------------------------------------------------------------- statistics
def test_wilson_interval_known_values():
    lo, hi = T.wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = T.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = T.wilson_interval(100, 100)
    assert hi == 1.0 and lo == pytest.approx(0.9630, abs=1e-4)
    assert T.wilson_interval(0, 0) == (0.0, 1.0)


def test_luce_fit_recovers_known_strengths():
    """Exact expected win counts of a Luce model over mixed tables give back its strengths."""
    gamma = np.array([1.0, 2.0, 4.0, 0.5])
    rows_m, rows_c, weights = [], [], []
    for table in [(0, 1), (0, 2), (1, 2, 3), (0, 1, 2, 3), (3, 3, 0)]:
        m = np.bincount(table, minlength=4).astype(float)
        p = m * gamma / (m * gamma).sum()
        rows_m.append(m)
        rows_c.append(1000 * p)
        weights.append(1000)
    fitted = T.fit_luce(np.array(rows_m), np.array(rows_c), np.array(weights), prior=0.0)
    assert fitted / fitted[0] == pytest.approx(gamma / gamma[0], rel=1e-6)
    ratings = T.elo(fitted)
    assert ratings.mean() == pytest.approx(1500)
    assert ratings[2] - ratings[0] == pytest.approx(400 * math.log10(4), rel=1e-6)
    # an agent that never wins keeps a finite rating thanks to the prior
    never = T.fit_luce(np.array([[1.0, 1.0]]), np.array([[10.0, 0.0]]), np.array([10]))
    assert np.all(np.isfinite(T.elo(never))) and never[0] > never[1]


# ---------------------------------------------------------------- schedules
@pytest.mark.parametrize("agents,players", [(2, 2), (5, 2), (5, 4), (3, 4), (2, 4), (6, 3), (7, 6), (1, 3)])
def test_mixed_schedule_seats_every_agent_in_every_seat_equally(agents, players):
    lineups = T.mixed_lineups(agents, players)
    seat_counts = Counter((seat, e) for lineup in lineups for seat, e in enumerate(lineup))
    per_seat = {seat_counts[(s, e)] for s in range(players) for e in range(agents)}
    assert len(per_seat) == 1 and per_seat.pop() > 0
    if agents >= players:  # every table has distinct agents, every combination plays
        assert all(len(set(lineup)) == players for lineup in lineups)
        assert len({frozenset(x) for x in lineups}) == math.comb(agents, players)
    schedule = T.build_schedule("mixed", agents, players, 7)
    assert schedule.num_matches % len(lineups) == 0 and schedule.num_matches >= 7


@pytest.mark.parametrize(
    "agents,players,partners", [(2, 4, False), (3, 6, False), (2, 4, True), (3, 6, True), (2, 2, False)]
)
def test_field_schedule_seats_the_first_agent_alone_in_every_seat(agents, players, partners):
    lineups = T.field_lineups(agents, players, partners)
    half = players // 2
    for lineup in lineups:
        seats = [s for s, e in enumerate(lineup) if e == 0]
        others = {e for e in lineup if e != 0}
        assert len(others) == 1  # one other agent fills the rest
        assert seats == ([seats[0], seats[0] + half] if partners else [seats[0]])
    first_seats = Counter(lineup.index(0) for lineup in lineups)
    assert set(first_seats) == set(range(half if partners else players)) and len(set(first_seats.values())) == 1
    assert Counter(e for lineup in lineups for e in set(lineup) - {0}) == {
        e: len(lineups) // (agents - 1) for e in range(1, agents)
    }
    with pytest.raises(ValueError, match="at least two agents"):
        T.field_lineups(1, players, partners)


@pytest.mark.parametrize("partners", [False, True], ids=["4p", "partners"])
def test_field_tournament_reports_the_first_agent_against_each_field(partners):
    """`--schedule field`: the summary's win rate of the first agent (its team) against each
    other agent equals its count of won hands, over hands where it sat with that agent only."""
    config = RuleConfig(num_players=4, partners=partners)
    agents = ["tactical", "random_play", "naive"]
    summary, schedule, entrants, records = T.run_tournament(agents, config, 48, seed=2, schedule="field", bootstrap=0)
    fair = 0.5 if partners else 0.25
    assert set(summary["field"]) == {"random_play", "naive"}
    for j, label in ((1, "random_play"), (2, "naive")):
        cell = summary["field"][label]
        jobs = [k for k, lineup in enumerate(schedule.jobs) if j in lineup]
        wins = sum(bool((records["outcome"][k][np.array(schedule.jobs[k]) == 0] > 0).any()) for k in jobs)
        assert (cell["games"], cell["wins"], cell["fair_share"]) == (len(jobs), wins, fair)
        assert cell["ratio"] == pytest.approx(cell["win_rate"] / fair)
        assert cell["win_rate_ci"][0] <= cell["win_rate"] <= cell["win_rate_ci"][1]
    assert summary["field"]["random_play"]["win_rate"] > fair  # tactical beats a table of random_play
    board = {row["agent"]: row for row in summary["leaderboard"]}
    lineups = np.array(schedule.jobs)
    for e, label in enumerate(agents):  # the leaderboard's win rate is per seat held: the field's seats
        seated = lineups == e  # are not one player, and their summed wins no strength
        wins = int((seated & (records["outcome"] > 0)).sum())
        row = board[label]
        assert (row["seats"], row["wins"], row["win_rate"]) == (int(seated.sum()), wins, wins / seated.sum())
        assert row["win_rate_ci"][0] <= row["win_rate"] <= row["win_rate_ci"][1]
    assert board["random_play"]["seats"] == board["random_play"]["games"] * (2 if partners else 3)
    assert board["random_play"]["win_rate"] < fair < board["tactical"]["win_rate"]
    both = summary["field"]["random_play"]["games"] + summary["field"]["naive"]["games"]
    team_wins = summary["field"]["random_play"]["wins"] + summary["field"]["naive"]["wins"]
    assert board["tactical"]["win_rate"] == pytest.approx(team_wins / both)  # one seat, or one team
    text = T.format_leaderboard(summary)
    assert "win rate: the share of the agent's seats that won" in text
    assert "against the field" in text and f"over {summary['field']['naive']['games']} games;" in text  # whole games


def partners_of(table):
    """Partner pairs of a 4-seat table (seats 0 and 2, 1 and 3)."""
    return [frozenset((table[0], table[2])), frozenset((table[1], table[3]))]


def test_r_var_rotate_schedules_every_partnership():
    four = T.rotate_hands(4)
    assert len(four) == 3 and all(len(hand) == 1 for hand in four)
    pairs = Counter(p for hand in four for table in hand for p in partners_of(table))
    assert set(pairs) == {frozenset(p) for p in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]}
    assert set(pairs.values()) == {1}  # each player partners each other player once
    eight = T.rotate_hands(8)
    assert len(eight) == 28 and all(len(hand) == 2 for hand in eight)
    for hand in eight:
        assert sorted(p for table in hand for p in table) == list(range(8))  # everyone plays every hand
    pairs = Counter(p for hand in eight for table in hand for p in partners_of(table))
    assert len(pairs) == 28 and set(pairs.values()) == {4}  # each pair partners for four hands
    seats = Counter((p, s) for hand in eight for table in hand for s, p in enumerate(table))
    assert set(seats.values()) == {7}  # and sits in every seat equally often
    with pytest.raises(ValueError, match="4 or 8 players"):
        T.rotate_hands(6)


def test_r_var_rotate_tournament_keeps_individual_totals_and_the_highest_total_wins():
    """A real rotating-partners tournament (R-VAR-ROTATE, D-VARIANTS): 4 players, 3 hands per
    rotation at a partners table; every player's total is the team points of its hands and
    the highest total wins the rotation."""
    config = RuleConfig(num_players=4, partners=True, episode="round")
    agents = ["random_play", "naive", "keeper", "tactical"]
    summary, schedule, entrants, records = T.run_tournament(
        agents, config, 8, seed=3, schedule="rotate", players=4, bootstrap=20
    )
    assert summary["games"] == 8 and summary["table_games"] == 24  # 3 hands per rotation
    multiplicity, credit, won, decided, totals = T.match_results(schedule, records, len(entrants))
    for m, entries in enumerate(schedule.matches):
        who = schedule.match_players[m]
        assert sorted(who) == [0, 1, 2, 3]
        jobs = sorted({job for job, _, _ in entries})
        assert len(jobs) == 3
        partnered = Counter()
        expected = np.zeros(4)
        for job in jobs:
            lineup = schedule.jobs[job]
            seat_of = {player: seat for j, seat, player in entries if j == job}
            for player, seat in seat_of.items():
                assert lineup[seat] == who[player]
                expected[player] += records["scores"][job, seat]
            outcome = records["outcome"][job]
            assert outcome[0] == outcome[2] and outcome[1] == outcome[3]  # partners win together
            assert records["scores"][job, 0] == records["scores"][job, 2]  # the team's score on both seats
            for a, b in ((0, 2), (1, 3)):
                partnered[frozenset((seat_of_inv(seat_of, a), seat_of_inv(seat_of, b)))] += 1
        assert len(partnered) == 6 and set(partnered.values()) == {1}
        assert np.array_equal(totals[m], expected)
        best = np.flatnonzero(expected == expected.max())
        assert set(np.flatnonzero(credit[m])) == {who[p] for p in best}
        assert credit[m].sum() == pytest.approx(1.0)
    assert sum(row["wins"] for row in summary["leaderboard"]) >= 8


def seat_of_inv(seat_of, seat):
    return next(player for player, s in seat_of.items() if s == seat)


def test_r_var_rotate_with_eight_players_plays_28_hands_at_two_tables():
    config = RuleConfig(num_players=4, partners=True, episode="round")
    summary, schedule, entrants, records = T.run_tournament(
        ["naive", "keeper", "tactical", "random_play"], config, 1, seed=5, schedule="rotate", players=8, bootstrap=0
    )
    assert summary["games"] == 4 and summary["table_games"] == 4 * 56  # rounded up to a cycle of seatings
    for m, who in enumerate(schedule.match_players):
        assert len(who) == 8 and Counter(who) == Counter({0: 2, 1: 2, 2: 2, 3: 2})
        assert len(schedule.matches[m]) == 56 * 4
    assert all(not t for t in records["truncated"])
    with pytest.raises(ValueError, match="4 or 8 players"):
        T.run_tournament(["naive", "keeper"], config, 1, schedule="rotate", players=6)


# ---------------------------------------------------------------- known outcomes
def test_an_agent_that_never_goes_out_never_wins_and_the_statistics_say_so():
    config = RuleConfig(num_players=2, episode="round")
    summary, schedule, entrants, records = T.run_tournament(
        ["tactical", "neverout"], config, 60, seed=2, workers=1, bootstrap=100
    )
    board = {row["agent"]: row for row in summary["leaderboard"]}
    assert [row["agent"] for row in summary["leaderboard"]] == ["tactical", "neverout"]
    assert board["tactical"]["games"] == board["neverout"]["games"] == 60
    assert board["tactical"]["wins"] == 60 and board["neverout"]["wins"] == 0
    assert board["tactical"]["win_rate_ci"] == pytest.approx(list(T.wilson_interval(60, 60)))
    assert board["neverout"]["win_rate_ci"][1] < 0.07
    assert board["neverout"]["points_per_hand"] == 0 and board["tactical"]["points_per_hand"] > 20
    assert board["tactical"]["rating"] - board["neverout"]["rating"] > 400
    lo, hi = board["tactical"]["rating_ci"]
    assert lo <= board["tactical"]["rating"] <= hi
    assert board["neverout"]["seconds_per_hand"] > 0 and board["tactical"]["seconds_per_hand"] is None
    seats = summary["seats"]
    assert [s["wins"] for s in seats] == [30, 30]  # each agent sits in each seat for half the games
    assert Counter(lineup for lineup in schedule.jobs) == Counter({(0, 1): 30, (1, 0): 30})
    assert summary["head_to_head"]["tactical"]["neverout"]["win_rate"] == 1.0
    assert summary["hand_length"]["truncated"] == 0 and summary["undecided_games"] == 0
    # every hand ends with the drawing agent's cards scored by the winner
    assert np.all(records["scores"][records["outcome"] > 0] > 0)


def test_four_player_tables_with_an_agent_that_never_goes_out():
    config = RuleConfig(num_players=4, episode="round")
    summary, schedule, *_ = T.run_tournament(
        ["random_play", "keeper", "tactical", "naive", "neverout"], config, 150, seed=4, workers=1, bootstrap=0
    )
    board = {row["agent"]: row for row in summary["leaderboard"]}
    assert board["neverout"]["wins"] == 0
    assert summary["games"] == 240  # 5 tables x 24 seatings, rounded up
    assert sum(board[a]["wins"] for a in board) == 240
    assert board["neverout"]["games"] == 240 * 4 // 5


def test_a_seeded_tournament_is_reproducible_and_independent_of_the_runner():
    config = RuleConfig(num_players=3, episode="round")
    agents = ["random_play", "keeper", "tactical"]
    first = T.run_tournament(agents, config, 60, seed=9, bootstrap=30)
    second = T.run_tournament(agents, config, 60, seed=9, bootstrap=30)
    for key in T.RECORD_FIELDS:
        if key not in ("seconds", "agent_seconds"):
            assert np.array_equal(first[3][key], second[3][key]), key
    strip = lambda s: {k: v for k, v in s.items() if k != "elapsed_seconds"}  # noqa: E731
    assert strip(first[0]) == strip(second[0])
    other = T.run_tournament(agents, config, 60, seed=10, bootstrap=0)
    assert not np.array_equal(first[3]["steps"], other[3]["steps"])
    # the same table games stepped from Python (as for non-compiled agents) give the same results
    player = T.TablePlayer(config, first[2], seed=9)
    for job in range(0, 60, 7):
        rec = player.play(job, first[1].jobs[job])
        for key in ("outcome", "scores", "steps", "last_winner"):
            assert np.array_equal(rec[key][0], first[3][key][job]), (job, key)


@pytest.mark.slow
def test_worker_processes_give_the_same_results_as_one_process():
    config = RuleConfig(num_players=2, episode="round")
    agents = ["keeper", "ismcts:determinizations=4:max_rollout_steps=200"]
    one = T.run_tournament(agents, config, 6, seed=1, workers=1, bootstrap=0)
    two = T.run_tournament(agents, config, 6, seed=1, workers=2, bootstrap=0)
    for key in ("outcome", "scores", "steps", "last_winner", "rounds"):
        assert np.array_equal(one[3][key], two[3][key]), key


def test_whole_games_to_the_target_score():
    config = RuleConfig(num_players=3, episode="game", target_score=150)
    summary, _, _, records = T.run_tournament(["keeper", "tactical", "naive"], config, 6, seed=1, bootstrap=0)
    assert np.all(records["rounds"] >= 1) and records["rounds"].max() > 1
    winners = records["outcome"] > 0
    assert np.all(winners.sum(axis=1) == 1)
    assert np.all(records["scores"][winners] >= 150)
    assert "hands_per_game" in summary["hand_length"]


# ---------------------------------------------------------------- the command line
def test_command_line_writes_the_leaderboard_files(tmp_path, capsys):
    out = tmp_path / "res"
    rc = CLI.main(
        [
            "--agents",
            "random,keeper,tactical",
            "--players",
            "2",
            "--games",
            "300",
            "--seed",
            "5",
            "--set",
            "deck=fashion_trend",
            "--set",
            "uno_call=auto",
            "--out",
            str(out),
            "--bootstrap",
            "50",
            "--no-progress",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "rating" in text and "per-seat win rate" in text and "head to head" in text
    data = json.loads((out / "tournament.json").read_text())
    assert data["settings"]["deck"] == "fashion_trend" and data["settings"]["uno_call"] == "auto"
    assert data["settings"]["episode"] == "round" and data["games"] == 300
    board = {row["agent"]: row for row in data["leaderboard"]}
    assert board["random"]["win_rate_ci"][1] < board["keeper"]["win_rate_ci"][0]
    assert board["random"]["rating_ci"][1] < board["keeper"]["rating_ci"][0]
    lines = (out / "tournament_leaderboard.csv").read_text().splitlines()
    assert lines[0].startswith("agent,games,seats,wins,win_rate") and len(lines) == 4
    games = (out / "tournament_games.csv").read_text().splitlines()
    assert len(games) == 301
    assert (out / "tournament.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--agents", "random,alphauno"], "unknown agent 'alphauno'"),
        (["--agents", "random,keeper", "--players", "11"], "num_players=11"),
        (["--agents", "random,keeper", "--players", "3", "--schedule", "rotate"], "4 or 8 players"),
        (["--agents", "random,keeper", "--set", "colour=red"], "unknown setting 'colour'"),
        (["--agents", "random,keeper", "--set", "target_score=lots"], "target_score takes an integer"),
        (["--agents", "random,human"], "'human' plays in 'uno play'"),
        (["--agents", "random,random"], "listed twice"),
        (["--agents", "random,keeper", "--games", "0"], "--games must be a positive integer"),
        (["--agents", "random,keeper", "--schedule", "rotate", "--episode", "game"], "single hands"),
    ],
)
def test_command_line_errors_name_the_problem(argv, message, capsys, tmp_path):
    rc = CLI.main(argv + ["--out", str(tmp_path), "--no-progress"])
    assert rc == 2
    assert message in capsys.readouterr().err


def test_uno_cli_knows_the_commands():
    from uno_env.cli.main import COMMANDS

    assert COMMANDS["tournament"][0] == "uno_env.cli.tournament"
    assert COMMANDS["play"][0] == "uno_env.cli.play"
    parser = CLI.build_parser()
    args = parser.parse_args([])
    assert args.agents == CLI.DEFAULT_AGENTS and args.schedule == "mixed"
    assert len(T.make_entrants(args.agents.split(","), RuleConfig(num_players=CLI.DEFAULT_PLAYERS))) == 5


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("UNO_LONG_TESTS"), reason="the default demo takes minutes: set UNO_LONG_TESTS=1")
def test_default_demo_separates_random_from_the_heuristics(tmp_path, capsys):
    assert CLI.main(["--out", str(tmp_path), "--no-progress"]) == 0
    data = json.loads((tmp_path / "tournament.json").read_text())
    board = {row["agent"].split(":")[0]: row for row in data["leaderboard"]}
    for name in ("keeper", "tactical", "ppo", "ppo_search"):
        assert board["random"]["win_rate_ci"][1] < board[name]["win_rate_ci"][0]
        assert board["random"]["rating_ci"][1] < board[name]["rating_ci"][0]


def test_a_tournament_under_the_house_rules_from_the_command_line(tmp_path):
    """`uno tournament --set stacking=mixed --set seven_o=true ...`: the settings reach the
    table, every compiled agent plays them, and the written results say so."""
    argv = ["--agents", "tactical,keeper,random_play,ppo", "--players", "4", "--games", "48", "--bootstrap", "0"]
    argv += ["--set", "stacking=mixed", "--set", "seven_o=true", "--set", "jump_in=true", "--out", str(tmp_path)]
    assert CLI.main([*argv, "--no-progress"]) == 0
    data = json.loads((tmp_path / "tournament.json").read_text())
    settings = data["settings"]
    assert (settings["stacking"], settings["seven_o"], settings["jump_in"]) == ("mixed", True, True)
    assert sum(row["games"] for row in data["leaderboard"]) >= 4 * 48


def test_saved_games_are_the_games_the_tournament_counted(tmp_path):
    """`save_games`: the first K table games of each pairing, replayed from Python with the
    tournament's seeds; each record replays to the outcome the tournament recorded."""
    from uno_env.engine.record import load, replay

    config = RuleConfig(num_players=3)
    summary, schedule, entrants, records = T.run_tournament(
        ["tactical", "keeper", "random_play", "naive"], config, 24, seed=4, bootstrap=0
    )
    paths = T.save_games(config, entrants, schedule, 4, 2, tmp_path)
    pairings = Counter(tuple(sorted(set(lineup))) for lineup in schedule.jobs)
    assert len(paths) == 2 * len(pairings)
    for path in paths:
        record = load(path)
        job = record["tournament"]["job"]
        assert record["agents"] == [entrants[e].label for e in schedule.jobs[job]]
        game = T.TablePlayer(config, entrants, 4).game
        assert game.outcome(replay(record)) == records["outcome"][job].tolist()
        assert path.with_suffix(".html").read_text().startswith("<!DOCTYPE html>")


def test_uno_tournament_save_games_writes_records_and_replays(tmp_path):
    argv = ["--agents", "tactical,keeper", "--games", "8", "--bootstrap", "0", "--out", str(tmp_path)]
    assert CLI.main([*argv, "--save-games", "3", "--no-progress"]) == 0
    records = sorted((tmp_path / "games").glob("game_*.json"))
    assert len(records) == 3 and all(p.with_suffix(".html").is_file() for p in records)
    with pytest.raises(SystemExit) as refused:
        CLI.main([*argv, "--save-games", "-1", "--no-progress"])
    assert refused.value.code == 2


def test_out_refuses_a_folder_holding_a_previous_run_unless_overwrite(tmp_path, capsys):
    """`--out DIR` into a folder that holds a run's files stops before playing, naming them;
    `--overwrite` replaces them, and the old run's game records go; --help says so."""
    argv = ["--agents", "tactical,keeper", "--games", "4", "--bootstrap", "0", "--no-progress", "--out", str(tmp_path)]
    assert CLI.main([*argv, "--save-games", "1"]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    capsys.readouterr()
    assert CLI.main([*argv, "--seed", "9"]) == 2
    said = capsys.readouterr()
    assert "holds a previous run's files (tournament.json, tournament_leaderboard.csv" in said.err
    assert "--overwrite" in said.err and said.out == ""  # refused before any game
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")  # a folder holding other files only takes a run
    assert CLI.main([*argv[:-1], str(other)]) == 0 and (other / "tournament.json").is_file()
    (tmp_path / "notes.txt").write_text("mine")
    assert CLI.main([*argv, "--seed", "9", "--overwrite"]) == 0
    data = json.loads((tmp_path / "tournament.json").read_text())
    assert data["seed"] == 9 and list((tmp_path / "games").iterdir()) == []
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert "--overwrite" in CLI.build_parser().format_help()
