"""An action block is declared once (``engine/actions.BLOCKS``): every place that needs to
know it (the kernels' kinds, the parameter vector and its action table, the step's decode,
the network file format, the docs' action table, the human agent's verbs) takes it from
there."""

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from uno_env import docs
from uno_env.agents import neural
from uno_env.agents.human import HumanAgent
from uno_env.engine import Game, RuleConfig
from uno_env.engine import layout as layout_module
from uno_env.engine.actions import BLOCKS, KIND_NAMES, KINDS, VERBS, ActionTable, Kind, kind_lines
from uno_env.engine.config import house_rules_on
from uno_env.engine.kernels import codes
from uno_env.engine.kernels.step import decode_action
from uno_env.engine.layout import ACTION_OFFSETS, NUM_PARAMS, P_ACTION_TABLE, Param

CONFIGS = [
    RuleConfig(num_players=2),
    RuleConfig(num_players=3, deck="fashion_trend"),
    RuleConfig(num_players=4, uno_call="off"),
    RuleConfig(num_players=4, uno_call="auto", seven_o=True),
    RuleConfig(num_players=7, seven_o=True, deck="fashion_trend", stacking="mixed", jump_in=True),
    RuleConfig(num_players=10, seven_o=True),
]


def test_the_kinds_are_those_the_blocks_name_in_order():
    """The kinds of today keep their codes (a new block's kind is appended after them)."""
    assert KINDS[:9] == ("PLAY", "DRAW", "PASS", "UNO", "CHALLENGE", "ACCEPT", "CATCH", "COLOUR", "SWAP")
    assert KIND_NAMES[:9] == ("play", "draw", "pass", "uno", "challenge", "accept", "catch", "color", "swap")
    for code, name in enumerate(KINDS):
        assert getattr(codes, f"KIND_{name}") == int(Kind[name]) == code
        assert type(getattr(codes, f"KIND_{name}")) is int  # a plain int: numba compiles it as a constant


def test_the_kinds_block_of_codes_is_generated_from_the_declaration():
    """kernels/codes.py's KIND_* lines are what kind_lines() makes of BLOCKS (python -m uno_env.docs --write)."""
    text = layout_module.CODES_PATH.read_text()
    block = layout_module.KINDS_BLOCK.search(text)
    assert block is not None
    assert text[block.end(1) : block.start(2)].splitlines() == kind_lines()


def test_every_declared_block_reaches_each_place_that_names_it():
    names = [block.name for block in BLOCKS]
    assert len(set(names)) == len(names) and names[0] == neural.PLAY_BLOCK
    for block in BLOCKS[1:]:
        assert ACTION_OFFSETS[block.name] == int(Param[block.param])  # its entry of P
        assert neural.ACTION_BLOCKS[block.name] == ACTION_OFFSETS[block.name]  # a network file can name it
    assert set(neural.ACTION_BLOCKS) == set(names[1:])
    assert sorted(neural.ACTION_SLOTS) == sorted(ACTION_OFFSETS.values())  # the forward pass finds its block
    for block in BLOCKS:
        assert docs.ACTION_WHEN[block.name] == block.when
        assert block.verb in VERBS and block.kind in KINDS


@pytest.mark.parametrize("config", CONFIGS, ids=repr)
def test_decode_reads_the_table_of_the_declared_blocks(config):
    """Per action id, decode_action (compiled and interpreted) gives the kind, face and colour
    that the declared block's row says; P's A_* entries are the blocks' first ids."""
    table = ActionTable(config)
    P = Game(config).params
    assert P[P_ACTION_TABLE] == NUM_PARAMS and len(P) == NUM_PARAMS + 3 * table.num_actions
    expected = [(int(k), int(f), int(c)) for k, f, c in zip(table.kinds, table.faces, table.colours)]
    for decode in (decode_action, decode_action.py_func):
        assert [tuple(int(v) for v in decode(P, a)) for a in range(table.num_actions)] == expected
    rows = [row for block in BLOCKS for row in block.rows(config)]
    assert [(k, f, c) for _, k, f, c in rows] == expected and [text for text, *_ in rows] == list(table.strings)
    present = {block.name for block in BLOCKS[1:] if block.entries(config)}
    assert set(table.offsets) == present
    for name, index in ACTION_OFFSETS.items():
        assert P[index] == table.offset(name) == (table.offsets[name] if name in present else -1)


def test_the_docs_table_has_a_row_per_present_block():
    config = RuleConfig(num_players=4, deck="fashion_trend", **house_rules_on())  # every block present
    rows = docs.action_table(config).splitlines()[2:]
    assert [row.split(" | ")[-1].rstrip(" |") for row in rows] == [block.when for block in BLOCKS]
    assert "swap" not in docs.action_table(RuleConfig(num_players=4))


@pytest.mark.parametrize("config", [CONFIGS[3], CONFIGS[4]], ids=repr)
def test_a_person_may_type_every_action_of_every_block(config):
    """The human agent reads each action's text, and its verb in another case, as its id."""
    game = Game(config)
    agent = HumanAgent(game, stdin=io.StringIO(), stdout=io.StringIO())
    mask = np.ones(game.num_actions, dtype=np.int8)
    for action, text in enumerate(game.actions.strings):
        assert agent.parse(text, mask) == action
        verb, *rest = text.split()
        assert agent.parse(" ".join([verb.upper(), *rest]), mask) == action
    assert agent.parse("colour g", mask) == game.string_to_action("color G")


def test_an_unknown_action_names_the_forms_of_the_present_blocks_in_table_order():
    table = ActionTable(RuleConfig(num_players=4, seven_o=True))
    with pytest.raises(ValueError) as raised:
        table.to_id("jump")
    assert str(raised.value).endswith(
        "expected play <card> [colour], draw, pass, uno, challenge, accept, catch, color <c>, swap <1..3>"
    )
    with pytest.raises(ValueError, match=r"^unknown action 'Draw 3' in this configuration: expected play"):
        table.to_id("Draw 3")  # a verb without a parser of its words: read as written
    with pytest.raises(ValueError, match=r"accept, color <c>$"):
        ActionTable(RuleConfig(num_players=2, uno_call="off")).to_id("uno")


def test_a_malformed_declaration_is_refused():
    from uno_env.engine.actions import Block, single

    with pytest.raises(ValueError, match="upper-case name"):
        Block("skip", verb="skip", kind="skip", when="", entries=single())
    with pytest.raises(ValueError, match="recolour"):
        Block("skip", verb="skip", kind="SKIP", when="", entries=single(), recolour="colour")


REHEARSAL = r'''
"""A fresh process whose uno_env.engine.actions is actions.py with one more Block appended
to BLOCKS (the rehearsal's only edit), run interpreted (NUMBA_DISABLE_JIT=1: numba's cache
holds the real layout's constants)."""
import importlib.abc, importlib.util, io, pathlib, sys

import numpy as np

NEW_BLOCK = """    Block(
        "nudge",
        verb="nudge",
        kind="NUDGE",
        when="choose whom a Nudge nudges: the player k seats clockwise",
        entries=lambda config: [(str(k), -1, k) for k in range(1, config.num_players)],
    ),
)
\"\"\"Every block of the action table"""
MARKER = ')\n"""Every block of the action table'


class OneMoreBlock(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, file):
        self.file = file

    def find_spec(self, name, path, target=None):
        if name == "uno_env.engine.actions":
            return importlib.util.spec_from_file_location(name, self.file, loader=self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        text = self.file.read_text()
        assert text.count(MARKER) == 1
        exec(compile(text.replace(MARKER, NEW_BLOCK), str(self.file), "exec"), module.__dict__)


sys.meta_path.insert(0, OneMoreBlock(pathlib.Path(sys.argv[1]) / "uno_env" / "engine" / "actions.py"))

from uno_env import docs
from uno_env.agents import neural
from uno_env.agents.human import HumanAgent
from uno_env.engine import Game, RuleConfig, actions, layout
from uno_env.engine.kernels.step import decode_action

assert actions.KINDS[-1] == "NUDGE" and actions.KIND_NAMES[-1] == "nudge" and "nudge" in actions.VERBS
assert actions.kind_lines()[-1] == 'KIND_NUDGE = int(Kind["NUDGE"])'  # what docs --write adds to kernels/codes.py
game = Game(num_players=3)
assert game.actions.strings[-2:] == ("nudge 1", "nudge 2")
first = game.num_actions - 2
assert game.params[layout.ACTION_OFFSETS["nudge"]] == first == game.params[layout.Param["A_NUDGE"]]
assert neural.ACTION_BLOCKS["nudge"] == layout.ACTION_OFFSETS["nudge"]
assert neural.action_blocks(game)[-1].name == "nudge"
kind = len(actions.KINDS) - 1
decoded = [tuple(int(v) for v in decode_action(game.params, a)) for a in (first, first + 1)]
assert decoded == [(kind, -1, 1), (kind, -1, 2)]
assert "| `nudge 1` ... `nudge 2` | choose whom a Nudge nudges" in docs.action_table(RuleConfig(num_players=3))
human = HumanAgent(game, stdin=io.StringIO(), stdout=io.StringIO())
assert human.parse("Nudge 2", np.ones(game.num_actions, dtype=np.int8)) == first + 1
print("rehearsed")
'''


def test_a_block_declared_once_reaches_every_derived_place(tmp_path):
    """The rehearsal: a new block written once, in BLOCKS, reaches the kinds, P's entries and
    action table, the decode, the file format, the docs' table and the human verbs; the
    kernels' KIND_NUDGE is a line that ``docs --write`` would write."""
    script = tmp_path / "rehearsal.py"
    script.write_text(REHEARSAL)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(docs.ROOT))
    done = subprocess.run(
        [sys.executable, str(script), str(docs.ROOT)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and done.stdout.strip() == "rehearsed", done.stderr[-3000:]
