"""Doc tables generated from the code: the action table, the observation table, the
settings table, the position keys and the protocol's fields, events, decisions and example
exchange (:mod:`uno_env.protocol_doc`). ``python -m uno_env.docs --write`` rewrites them wherever
they appear between ``<!-- name -->`` and ``<!-- /name -->`` markers (the env module's and
the position module's docstrings, the guide's pages docs/envs.md and docs/rules.md, and
docs/PROTOCOL.md), and the block of short names of ``engine/layout.py``; tests check that
they are up to date.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import textwrap
from collections.abc import Callable

from .engine import RuleConfig
from .engine.actions import BLOCKS, ActionTable
from .engine.config import HOUSE_RULE_SETTINGS, SETTINGS, setting_docs
from .engine.kernel_exports import write_exports
from .engine.layout import write_short_names
from .engine.observation import ObservationSpec
from .engine.position import position_table
from .protocol_doc import event_table, example_section, observation_fields, phase_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [
    ROOT / "uno_env" / "env.py",
    ROOT / "uno_env" / "engine" / "position" / "__init__.py",
    ROOT / "docs" / "envs.md",
    ROOT / "docs" / "rules.md",
    ROOT / "docs" / "PROTOCOL.md",
]

ACTION_WHEN = {block.name: block.when for block in BLOCKS}
"""The words of each action block in the action table (declared with the block, in engine/actions.py)."""


def action_table(config: RuleConfig | None = None) -> str:
    """Markdown table of the action ids of a configuration, one row per block."""
    table = ActionTable(config or RuleConfig())
    rows = ["| ids | action | when |", "|---|---|---|"]
    for name, first, stop in table.blocks():
        last = stop - 1
        ids = str(first) if first == last else f"{first}-{last}"
        texts = f"`{table.strings[first]}`" + ("" if first == last else f" ... `{table.strings[last]}`")
        rows.append(f"| {ids} | {texts} | {ACTION_WHEN[name]} |")
    return "\n".join(rows)


def observation_table(config: RuleConfig | None = None) -> str:
    return ObservationSpec(config or RuleConfig(num_players=2)).markdown_table()


def settings_table() -> str:
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for name, default, text in setting_docs():
        rows.append(f"| `{name}` | `{default!r}` | {text} |")
    return "\n".join(rows)


def listed(names) -> str:
    """`a`, `b` and `c`."""
    quoted = [f"`{name}`" for name in names]
    return ", ".join(quoted[:-1]) + f" and {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def wrapped(text: str) -> str:
    return textwrap.fill(text, 90, break_long_words=False, break_on_hyphens=False)


def house_rules_list() -> str:
    """The house rules, named in prose (one home: the settings declared ``house`` in RuleConfig)."""
    return wrapped(listed(HOUSE_RULE_SETTINGS) + ".")


def settings_list() -> str:
    """Every setting, named in prose, the house rules last."""
    rules = [f.name for f in SETTINGS if f.name not in HOUSE_RULE_SETTINGS]
    return wrapped(listed(rules) + ", and the house rules " + listed(HOUSE_RULE_SETTINGS) + ".")


TABLES = {
    "action-table": action_table,
    "observation-table": observation_table,
    "settings-table": settings_table,
    "settings-list": settings_list,
    "house-rules-list": house_rules_list,
    "position-table": position_table,
    "protocol-fields": observation_fields,
    "protocol-events": event_table,
    "protocol-phases": phase_section,
    "protocol-example": example_section,
}


def _regenerate(make: Callable[[], str]) -> Callable[[re.Match[str]], str]:
    """A replacement for a marked table: its markers around a fresh table."""
    return lambda m: m.group(1) + make() + "\n" + m.group(2)


def fill(text: str) -> str:
    """``text`` with every marked table regenerated."""
    for name, make in TABLES.items():
        pattern = re.compile(rf"(<!-- {name} -->\n)(?:.*?\n)?(<!-- /{name} -->)", re.DOTALL)
        text = pattern.sub(_regenerate(make), text)
    return text


def stale_files() -> list[pathlib.Path]:
    return [path for path in FILES if path.exists() and fill(path.read_text()) != path.read_text()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="rewrite the tables in place")
    args = parser.parse_args(argv)
    stale = stale_files()
    if args.write:
        for path in stale:
            path.write_text(fill(path.read_text()))
            print(f"updated {path}")
        if write_short_names():
            print("updated the short names of uno_env/engine/layout.py")
        if write_exports():
            print("updated the kernels' exports in uno_env/engine/kernels/__init__.py")
        return 0
    for path in stale:
        print(f"stale tables in {path}; run python -m uno_env.docs --write")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
