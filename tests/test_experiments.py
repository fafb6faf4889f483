"""experiments/: every shipped network names the experiment that rebuilds it in one command,
every experiment carries its record, every figure table of docs/agents.md and
docs/training.md and of their histories (experiments/history/) names its experiment, and the
tables made from result files match them."""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import pytest

from experiments import ladders, tables

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
README = (EXPERIMENTS / "README.md").read_text()
FIELDS = ("Question:", "Seeds:", "Machine and time:", "Result:", "Commit:")
TOOLS = {"__init__.py", "soup.py", "tables.py"}
"""Python files of experiments/ that are tools, not experiments."""
FIGURE = re.compile(r"\d%|\[\s*-?[\d.]+,\s*[-+]?[\d.]+\s*\]")
"""A cell that holds a measured figure: a percentage or an interval."""
NAMED = re.compile(r"experiments/[\w/.-]*\w|python -m experiments\.\w+")


def experiment_files() -> list[pathlib.Path]:
    scripts = sorted((EXPERIMENTS / "networks").glob("*.sh"))
    modules = sorted(p for p in EXPERIMENTS.glob("*.py") if p.name not in TOOLS)
    return [*scripts, *modules, EXPERIMENTS / "records.md"]


def records(path: pathlib.Path) -> list[str]:
    """The record texts of an experiment file (records.md: one per section)."""
    text = path.read_text()
    if path.suffix == ".md":
        return re.split(r"^## ", text, flags=re.M)[1:]
    return [text]


def test_every_shipped_network_names_the_experiment_that_rebuilds_it_in_one_command():
    shipped = sorted(p.name for p in (ROOT / "uno_env" / "data").glob("*.npz"))
    assert shipped
    for name in shipped:
        rows = [line for line in README.splitlines() if line.startswith(f"| `uno_env/data/{name}` |")]
        assert len(rows) == 1, f"experiments/README.md: no row (or several) for uno_env/data/{name}"
        command = re.search(r"`bash (experiments/networks/[\w.]+\.sh)`", rows[0])
        assert command, rows[0]
        script = ROOT / command.group(1)
        assert script.exists(), script
        assert f"uno_env/data/{name}\n" in script.read_text().split("set -euo pipefail")[1], (
            f"{script.name} does not end by writing uno_env/data/{name}"
        )


def test_every_network_script_parses():
    bash = shutil.which("bash")
    assert bash
    for script in sorted((EXPERIMENTS / "networks").glob("*.sh")):
        done = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{script.name}: {done.stderr}"


def test_every_experiment_carries_its_record_and_is_listed():
    for path in experiment_files():
        for record in records(path):
            missing = [field for field in FIELDS if field not in record]
            assert missing == [], f"{path.relative_to(ROOT)} ({record.splitlines()[0][:40]}): no {missing}"
        listed = path.relative_to(EXPERIMENTS).as_posix()
        assert f"[`{listed}`]({listed})" in README, f"experiments/README.md does not list {listed}"


def figure_tables(text: str) -> list[tuple[int, int, int, bool]]:
    """(start of its section, first line, end, inside experiment markers) of each table, code
    fences skipped; a section starts at a heading of level 1 to 3."""
    lines = text.split("\n")
    found, section, fence, marked, i = [], 0, False, False, 0
    while i < len(lines):
        line = lines[i]
        fence ^= line.startswith("```")
        marked = (marked or line.startswith("<!-- experiment:")) and not line.startswith("<!-- /experiment:")
        if not fence and re.match(r"#{1,3} ", line):
            section = i
        if not fence and line.startswith("|"):
            end = i
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            found.append((section, i, end, marked))
            i = end
            continue
        i += 1
    return found


def names_an_experiment(text: str) -> bool:
    for name in NAMED.findall(text):
        if name.startswith("python -m "):
            path = ROOT / (name.removeprefix("python -m ").replace(".", "/") + ".py")
        else:
            path = ROOT / name
        if path.exists() and path.name not in TOOLS and path.parent.name != "results":
            return True
    return False


@pytest.mark.parametrize(
    "doc",
    [
        "docs/agents.md",
        "docs/training.md",
        "docs/is_my_bot_better.md",
        "experiments/history/agents.md",
        "experiments/history/training.md",
    ],
)
def test_every_figure_table_of_the_docs_names_its_experiment(doc):
    lines = (ROOT / doc).read_text().split("\n")
    nameless = []
    for section, first, end, marked in figure_tables("\n".join(lines)):
        if not FIGURE.search("\n".join(lines[first + 2 : end])):
            continue
        if marked:
            name = (
                next(line for line in reversed(lines[:first]) if line.startswith("<!-- experiment:"))
                .split(":")[1]
                .split(" ")[0]
            )
            assert name in tables.TABLES and (ROOT / tables.TABLES[name].experiment).exists(), name
        elif not names_an_experiment("\n".join(lines[section:end])):
            nameless.append(f"{doc}:{first + 1} ({lines[section][:60]})")
    assert nameless == [], "tables of figures whose section names no experiment: " + ", ".join(nameless)


def test_the_figure_check_finds_a_nameless_table():
    text = "## A section\n\nSome words.\n\n| a | b |\n|---|---|\n| x | 51.2% [50.1, 52.3] |\n"
    ((section, first, end, marked),) = figure_tables(text)
    assert not marked and FIGURE.search(text) and not names_an_experiment(text)
    assert names_an_experiment(text + "\n`python -m experiments.ladders`")
    assert not names_an_experiment(text + "\n`python -m experiments.soup`")  # a tool, not an experiment


def test_the_tables_of_the_docs_match_their_result_files():
    assert tables.stale() == [], "python -m experiments.tables --write"
    for doc in tables.DOCS:
        assert set(tables.marked(doc.read_text())) <= set(tables.TABLES)
    used = {name for doc in tables.DOCS for name in tables.marked(doc.read_text())}
    assert used == set(tables.TABLES), "a table of experiments/tables.py that no doc shows"


def test_a_changed_result_file_makes_its_table_stale(tmp_path, monkeypatch):
    for path in tables.RESULTS.glob("*.jsonl"):
        shutil.copy(path, tmp_path / path.name)
    rows = [json.loads(line) for line in (tmp_path / "strength.jsonl").read_text().splitlines()]
    field = rows[0]["summary"]["field"]["tactical"]
    field["win_rate"] += 0.01
    (tmp_path / "strength.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr(tables, "RESULTS", tmp_path)
    assert tables.stale() == ["docs/training.md"]


def test_every_result_line_says_where_it_comes_from():
    for path in sorted(tables.RESULTS.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            assert {"command", "source", "commit", "date", "machine", "seconds"} <= set(row), path.name
            assert row["source"].startswith(
                ("measured by python -m experiments.", "transcribed from the recorded run")
            ), row["source"]
            if row["source"].startswith("transcribed"):
                assert re.search(r"\b[0-9a-f]{7}\b", row["source"]), "a transcribed line names the commit it came from"


def test_a_ladder_runs_and_records_its_command_commit_and_machine(tmp_path):
    out = tmp_path / "ladders.jsonl"
    assert ladders.main(["heuristics_2p", "--smoke", "--out", str(out)]) == 0
    assert not out.exists()  # --smoke writes a throwaway file
    row = ladders.measure("heuristics_2p", ladders.LADDERS["heuristics_2p"], games=20)
    assert row["command"].startswith("uno tournament --agents random,random_play,naive,keeper,tactical --players 2")
    assert row["commit"] and row["machine"] and row["seconds"] >= 0
    assert sum(a["games"] for a in row["summary"]["leaderboard"]) == 2 * 20
    with pytest.raises(SystemExit):
        ladders.main(["no_such_ladder"])
