"""docs/DECISIONS.md's decisions are numbered 1, 2, 3, ... in the file's order, each number
once, and a number is a decision's id for good; every citation of a decision in the code and
the docs names one that exists (written ``docs/DECISIONS.md, decision N``, or
``decisions N and M``; inside DECISIONS.md ``(decision N)``), and a citation of a section
(``docs/DECISIONS.md, "title"``) names one of its ``##`` headings."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "docs" / "DECISIONS.md"
SEARCHED = ("uno_env", "tests", "docs", "experiments", "examples", "benchmarks", "README.md")
SUFFIXES = {".py", ".md", ".html", ".js", ".sh", ".toml", ".txt", ".ipynb", ".yml", ".yaml"}

REFERENCE = re.compile(r"DECISIONS(?:\.md|(?= \d))")
"""A mention of the file (``DECISIONS.md``, or ``DECISIONS`` and a number): a constant named
DECISIONS in the code is none."""
LEAD = r"[`)\]]*,?[\s#]*"  # after the file's name: its closing quote or link, a comma, a line break
NUMBERED = re.compile(LEAD + r"decisions? (\d+)(?: and (\d+))?\b")
SECTION = re.compile(LEAD + r'"([^"\n]+)"')
ANY_NUMBER = re.compile(LEAD + r"(?:decisions?\s*)?#?\d")
INSIDE = re.compile(r"\(decisions? (\d+)(?: and (\d+))?\)")
"""How DECISIONS.md cites its own decisions."""


def decision_numbers() -> list[int]:
    """The number of each decision, in the file's order (a decision is an item ``N. **...``)."""
    return [int(n) for n in re.findall(r"^(\d+)\. ", DECISIONS.read_text(encoding="utf-8"), flags=re.MULTILINE)]


def section_titles() -> set[str]:
    return set(re.findall(r"^## (.+?)\s*$", DECISIONS.read_text(encoding="utf-8"), flags=re.MULTILINE))


def searched_files() -> list[Path]:
    files = []
    for name in SEARCHED:
        path = ROOT / name
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES)
        files += [p for p in found if p.is_file() and "__pycache__" not in p.parts and p != Path(__file__).resolve()]
    return files


def citations() -> list[tuple[str, str, str]]:
    """Every citation of DECISIONS.md: (where, ``decision`` or ``section`` or ``unclear``, what it names)."""
    found = []
    for path in searched_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        where = str(path.relative_to(ROOT))
        for match in REFERENCE.finditer(text):
            at = f"{where}:{text.count(chr(10), 0, match.start()) + 1}"
            numbered = NUMBERED.match(text, match.end())
            section = SECTION.match(text, match.end())
            if numbered:
                found += [(at, "decision", n) for n in numbered.groups() if n]
            elif section:
                found.append((at, "section", section.group(1)))
            elif ANY_NUMBER.match(text, match.end()):
                found.append((at, "unclear", text[match.start() : match.end() + 30]))
        if path == DECISIONS:
            for match in INSIDE.finditer(text):
                at = f"{where}:{text.count(chr(10), 0, match.start()) + 1}"
                found += [(at, "decision", n) for n in match.groups() if n]
    return found


def test_the_decisions_are_numbered_in_order_each_number_once():
    numbers = decision_numbers()
    assert len(numbers) >= 30
    assert numbers == list(range(1, len(numbers) + 1)), "renumbered, a gap or a number twice in docs/DECISIONS.md"


def test_every_citation_names_a_decision_that_exists():
    numbers, titles = set(decision_numbers()), section_titles()
    found = citations()
    kinds = {kind for _, kind, _ in found}
    assert {"decision", "section"} <= kinds and len(found) >= 6  # the search finds the citations there are
    for where, kind, what in found:
        assert kind != "unclear", f"{where}: cite a decision as 'docs/DECISIONS.md, decision N': {what!r}"
        if kind == "decision":
            assert int(what) in numbers, f"{where}: there is no decision {what} in docs/DECISIONS.md"
        else:
            assert what in titles, f"{where}: docs/DECISIONS.md has no section {what!r}: {sorted(titles)}"
