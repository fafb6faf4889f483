"""The ``uno`` commands refuse values that cannot end, fit or be used: one line on
stderr naming the value, exit status 2, nothing run (uno_env/cli/args.py)."""

import socket

import numpy as np
import pytest

from uno_env.arena.distributed import check_answers
from uno_env.cli import main as cli
from uno_env.cli.args import check_memory, check_output_folder
from uno_env.vector import UnoVectorEnv


def run_cli(argv, capsys) -> tuple[int, str]:
    """Exit status and stderr of ``uno ARGV`` (argparse's errors exit through SystemExit)."""
    try:
        status = cli.main(argv)
    except SystemExit as done:
        status = done.code
    err = capsys.readouterr().err
    return status, err


def closed_port() -> int:
    """A local port that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    return lines[-1]


@pytest.mark.parametrize(
    "argv,named",
    [
        (["bench", "--seconds", "nan"], "nan"),
        (["bench", "--seconds", "inf"], "inf"),
        (["bench", "--seconds", "-1"], "-1"),
        (["bench", "--seconds", "1e9"], "1e9"),
        (["bench", "--repeats", "0"], "0"),
        (["bench", "--players", "11"], "11"),
        (["bench", "--players", "1"], "1"),
        (["bench", "--players", "two"], "two"),
        (["bench", "--play-decisions", "-5"], "-5"),
        (["bench", "--play-size", "0"], "0"),
        (["bench", "--sizes", "1,-3"], "1,-3"),
        (["bench", "--sizes", "1,1000000000000"], "1000000000000"),
        (["bench", "--seed", "-1"], "-1"),
        (["tournament", "--games", "1000000000000", "--no-files"], "1000000000000"),
        (["tournament", "--games", "-3"], "-3"),
        (["tournament", "--bootstrap", "-1"], "-1"),
        (["tournament", "--seed", str(2**64)], str(2**64)),
        (["playthrough", "--players", "11"], "11"),
        (["playthrough", "--seed", "-1"], "-1"),
    ],
)
def test_values_that_cannot_end_or_fit_are_refused_in_one_line(argv, named, capsys):
    status, err = run_cli(argv, capsys)
    assert status == 2, err
    line = error_line(err)
    assert named in line and "error" in line, err


def test_an_output_folder_that_cannot_be_written_is_refused_up_front(tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("")
    for argv in (["bench", "--out", str(blocker / "results")], ["tournament", "--out", str(blocker)]):
        status, err = run_cli([*argv, "--games", "2"] if argv[0] == "tournament" else argv, capsys)
        assert status == 2 and str(blocker) in error_line(err), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]  # nothing made
    check_output_folder("--out", tmp_path / "new" / "deeper")  # a folder still to be made is fine
    assert not (tmp_path / "new").exists()


def test_memory_check_names_the_count_and_the_limit():
    check_memory("--games", 10, 100, "game", available=1000)
    with pytest.raises(ValueError, match=r"--games 11: needs about .* use at most 10"):
        check_memory("--games", 11, 100, "game", available=1000)


def test_a_ray_address_that_does_not_answer_is_refused_within_its_timeout(capsys):
    port = closed_port()
    with pytest.raises(ValueError, match=rf"127.0.0.1:{port}' does not answer within 0.5 s"):
        check_answers(f"127.0.0.1:{port}", timeout=0.5)
    with pytest.raises(ValueError, match="expected host:port"):
        check_answers("nonexistent")
    with socket.socket() as server:  # one that listens answers
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_answers(f"ray://127.0.0.1:{server.getsockname()[1]}", timeout=5)
    argv = ["tournament", "--agents", "random,naive", "--players", "2", "--games", "2", "--no-files"]
    status, err = run_cli([*argv, "--no-progress", "--ray", f"127.0.0.1:{port}"], capsys)
    assert status == 2 and f"127.0.0.1:{port}" in error_line(err) and "within 10 s" in err, err


def test_vector_play_and_render_refuse_bad_counts_and_seats():
    env = UnoVectorEnv(2, num_players=2)
    env.reset(seed=0)
    ints = env.ints.copy()
    for bad in (-5, 2.5, True, 2**63):
        with pytest.raises(ValueError, match=rf"max_decisions must be an integer .*got {bad!r}"):
            env.play(max_decisions=bad)
    with pytest.raises(ValueError, match="max_episodes"):
        env.play(max_decisions=5, max_episodes=-1)
    assert np.array_equal(env.ints, ints)
    for bad in (100, -1, 0.5, True):
        with pytest.raises(ValueError, match=rf"viewer must be a seat 0..1 or None, got {bad!r}"):
            env.render_games("ansi", viewer=bad)
    assert len(env.render_games("ansi", viewer=1)) == 2
