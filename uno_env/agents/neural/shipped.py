"""The shipped networks and the compiled policy ``ppo``: the network files in
``uno_env/data`` by kind of table (:data:`SHIPPED_KINDS`), which one plays at a table
(:func:`shipped_entry`, :func:`shipped_network`), the check of every door that seats ``ppo``
(:func:`check_shipped`), and :func:`shipped_policy`, which plays them inside compiled code
(their weights compiled in as constants)."""

from __future__ import annotations

import pathlib

import numpy as np

from ...engine.config import HOUSE_RULE_SETTINGS, MAX_PLAYERS, RuleConfig
from ...engine.game import Game
from ...engine.jit import describe, kernel
from ...engine.layout import EPISODE_ROUND, P_EPISODE, P_NUM_PLAYERS, P_PARTNERS, Param
from .colours import policy_action
from .files import load_network
from .network import Network, warn_outside_training

describe(__name__, "the policy network's forward pass", seconds=10)

_DATA = pathlib.Path(__file__).resolve().parents[2] / "data"
SHIPPED_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p.npz" for players in (2, 3, 4, 6)}
"""The shipped policies (weights, input layout, training command and figures), by the
number of players of the table each was trained at. The compiled policy ``ppo`` plays
at each table the network :func:`shipped_table` names."""
SHIPPED_PARTNER_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p_partners.npz" for players in (4,)}
"""The shipped policies of partner tables (R-VAR-PARTNERS; trained as one team of two seats),
by number of players. A partner table without its own plays the network of
:func:`shipped_table`, like any table of its size."""
SHIPPED_GAME_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p_game.npz" for players in (2, 4)}
"""The shipped policies of whole games (``episode="game"``, no partners; trained on each hand's
points margin, so they lose hands with few points in hand), by number of players. A
whole-game table without its own plays the network of :func:`shipped_table`."""
SHIPPED_PARTNER_GAME_PATHS: dict[int, pathlib.Path] = {
    players: _DATA / f"ppo_{players}p_partners_game.npz" for players in (4,)
}
"""The shipped policies of whole games at partner tables (trained as one team of two seats, on
each hand's points margin), by number of players. A partner table's whole game without its
own plays the partner table's hands network, else that of :func:`shipped_table`."""
SHIPPED_HOUSE_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p_house.npz" for players in (2, 4)}
"""The shipped policies that know the house rules (:mod:`.grow`: they read which house rules are
on), by number of players: ``ppo`` plays one at a table of its size with no partners, hands or
whole games, where one of the house rules its file plays under is on
(:data:`HOUSE_RULES_PLAYED`; trained on hands of each house rule alone, all of them, and none)."""
SHIPPED_PATH = SHIPPED_PATHS[2]
"""The shipped two-player policy."""


def _load_shipped(paths: dict[int, pathlib.Path]) -> dict[int, Network]:
    """The networks of those files that are shipped, read once at import, by number of players."""
    return {players: load_network(path) for players, path in paths.items() if path.is_file()}


SHIPPED_NETWORKS = _load_shipped(SHIPPED_PATHS)
"""The shipped networks, by the number of players they were trained for."""
SHIPPED_PARTNER_NETWORKS = _load_shipped(SHIPPED_PARTNER_PATHS)
"""The shipped networks of partner tables, by number of players."""
SHIPPED_GAME_NETWORKS = _load_shipped(SHIPPED_GAME_PATHS)
"""The shipped networks of whole games, by number of players."""
SHIPPED_PARTNER_GAME_NETWORKS = _load_shipped(SHIPPED_PARTNER_GAME_PATHS)
"""The shipped networks of whole games at partner tables, by number of players."""
SHIPPED_HOUSE_NETWORKS = _load_shipped(SHIPPED_HOUSE_PATHS)
"""The shipped networks that know the house rules, by number of players."""


def _house_rules_played(network: Network) -> tuple[str, ...]:
    """The house rules under which ``ppo`` plays a network that knows them: those its file names
    (``meta["plays_under"]``, where it was measured not to lose to the network trained without
    them; every house rule where the file names none), in declaration order."""
    named = set(network.meta.get("plays_under", HOUSE_RULE_SETTINGS))
    unknown = sorted(named - set(HOUSE_RULE_SETTINGS))
    if unknown:  # pragma: no cover - a file written for another engine
        raise ValueError(f"a shipped house network names unknown house rules: {', '.join(unknown)}")
    return tuple(name for name in HOUSE_RULE_SETTINGS if name in named)


HOUSE_RULES_PLAYED: dict[int, tuple[str, ...]] = {
    players: _house_rules_played(network) for players, network in SHIPPED_HOUSE_NETWORKS.items()
}
"""The house rules under which ``ppo`` plays the network that knows them, by number of players
(:func:`plays_house_network`): each file's own."""


def plays_house_network(config: RuleConfig) -> bool:
    """Whether ``ppo`` plays a network that knows the house rules at a table of ``config`` (its
    partners aside): one of the house rules its size's file plays under
    (:data:`HOUSE_RULES_PLAYED`) is on."""
    default = RuleConfig()
    played = HOUSE_RULES_PLAYED.get(config.num_players, ())
    return any(getattr(config, name) != getattr(default, name) for name in played)


SHIPPED_KINDS: dict[str, tuple[dict[int, pathlib.Path], dict[int, Network]]] = {
    "hands": (SHIPPED_PATHS, SHIPPED_NETWORKS),
    "partners": (SHIPPED_PARTNER_PATHS, SHIPPED_PARTNER_NETWORKS),
    "games": (SHIPPED_GAME_PATHS, SHIPPED_GAME_NETWORKS),
    "partner_games": (SHIPPED_PARTNER_GAME_PATHS, SHIPPED_PARTNER_GAME_NETWORKS),
    "house": (SHIPPED_HOUSE_PATHS, SHIPPED_HOUSE_NETWORKS),
}
"""Every kind of shipped network (:func:`shipped_entry` names one): its files and its networks,
by number of players."""
SHIPPED: Network | None = SHIPPED_NETWORKS.get(2)
"""The shipped two-player network (None where its weights file is not shipped)."""


def shipped_table(num_players: int) -> int | None:
    """The table (number of players) of the shipped network that ``ppo`` plays at a table of
    ``num_players``: its own, else the largest below it (a network reads the per-seat
    slices of its own table's size, so it can play at larger tables, not at smaller
    ones); None if there is none."""
    fits = [players for players in SHIPPED_NETWORKS if players <= num_players]
    return max(fits) if fits else None


def shipped_entry(
    num_players: int, partners: bool, episode: str = "round", house: bool = False
) -> tuple[str, int] | None:
    """Which shipped network ``ppo`` plays at a table, as (its kind in :data:`SHIPPED_KINDS`, its
    number of players): with one of the house rules its size's file plays under on (``house``,
    :func:`plays_house_network`) and no partners,
    the network of its size that knows the house rules; else the table's own where one is shipped
    (by partners and whole game: a partner table's whole game, else its hands; without partners
    a whole game's), else the
    hands network of :func:`shipped_table`; None when there is none. The one rule of both
    :func:`shipped_network` and the compiled policy's slots."""
    own: tuple[str, ...]  # the kinds of the table's own networks, by preference
    if house and not partners and num_players in SHIPPED_HOUSE_NETWORKS:
        return "house", num_players
    if partners:
        own = ("partner_games", "partners") if episode == "game" else ("partners",)
    else:
        own = ("games",) if episode == "game" else ()
    for kind in own:
        if num_players in SHIPPED_KINDS[kind][1]:
            return kind, num_players
    table = shipped_table(num_players)
    return None if table is None else ("hands", table)


def _shipped_choice(game: Game) -> tuple[dict[int, pathlib.Path], Network, int]:
    """The paths of the kind ``ppo`` plays at ``game``'s table, its network there and the
    table it was trained for; ValueError when none can play it."""
    config = game.config
    entry = shipped_entry(game.num_players, config.partners, config.episode, plays_house_network(config))
    if entry is None:
        raise ValueError(
            f"ppo: no shipped network plays {game.num_players} players (shipped: {_shipped_sizes()}); pass weights=PATH"
        )
    kind, table = entry
    paths, networks = SHIPPED_KINDS[kind]
    network = networks[table]
    problems = network.mismatches(game)
    if problems:
        raise ValueError(f"ppo: the shipped network cannot play this configuration: {'; '.join(problems)}")
    return paths, network, table


def _shipped_sizes() -> str:
    return ", ".join(f"{n} players" for n in sorted(SHIPPED_NETWORKS)) or "none"


def shipped_network(game: Game) -> tuple[str, Network]:
    """The shipped network ``ppo`` plays at ``game``'s table (:func:`shipped_entry`) and its
    label; ValueError when none can play it."""
    paths, network, table = _shipped_choice(game)
    name = paths[table].name
    if table == game.num_players:
        return f"ppo ({name})", network
    return f"ppo ({name}, the shipped network nearest {game.num_players} players; shipped: {_shipped_sizes()})", network


def shipped_path(game: Game) -> pathlib.Path:
    """The file of the shipped network ``ppo`` plays at ``game``'s table (ValueError as
    :func:`shipped_network`)."""
    paths, _, table = _shipped_choice(game)
    return paths[table]


def check_shipped(game: Game, stacklevel: int = 4) -> str | None:
    """The check of every door that seats the compiled policy ``ppo`` (``make_agent``, the
    vector env's seats and ``play``, the Gym env's opponents): ValueError when no shipped
    network can play ``game``; a warning, once, when the one it plays was trained for
    other tables (naming them, and the network it plays), whose text it returns each time."""
    label, network = shipped_network(game)
    return warn_outside_training(label, network, game, stacklevel=stacklevel)


def _slots(networks: list[Network]) -> tuple:
    """Per array of :meth:`Network.policy_arrays`, the tuple of that array of each network (one slot
    per network, each with the relabellings of the colours it plays by: all 24, or the identity
    alone for a network distilled from its own average; a single empty network when there is
    none, which no table uses). Numba
    freezes a global tuple of arrays of one type into the code as constants and indexes it
    at run time; a tuple rather than one stacked array because numba does not cache code
    that holds a global array over 1 MB."""
    if not networks:  # none shipped: ``ppo`` then refuses to act
        f32, i64 = np.float32, np.int64
        matrix, vector = np.zeros((0, 0), f32), np.zeros(0, f32)
        tables = (np.zeros((0, 4), i64), np.zeros(0, i64), np.zeros((0, 0), i64), np.zeros((0, 0), i64))
        return tuple((a,) for a in (matrix, vector, matrix, vector, matrix, vector, vector, *tables))
    return tuple(zip(*(tuple(np.ascontiguousarray(a) for a in network.policy_arrays()) for network in networks)))


_ENTRIES = [(kind, t) for kind, (_, networks) in SHIPPED_KINDS.items() for t in sorted(networks)]
# Compiled in as constants (numba_cache hashes the weights files with the sources, so new
# weights recompile). One slot per shipped network (_ENTRIES, as shipped_entry names them);
# _SLOT_OF[4 * house + 2 * partners + whole game, n] is the slot of the network of that table
# (-1: none); house: one of _HOUSE_SLOTS[n] of P (HOUSE_RULES_PLAYED[n]; -1 pads) is not 0 (each one's default).
_HOUSE_SLOTS = np.full((MAX_PLAYERS + 1, len(HOUSE_RULE_SETTINGS)), -1, dtype=np.int64)
for _n, _played in HOUSE_RULES_PLAYED.items():
    _HOUSE_SLOTS[_n, : len(_played)] = [int(Param[name.upper()]) for name in _played]
if any(RuleConfig().codes()[name] != 0 for name in HOUSE_RULE_SETTINGS):  # pragma: no cover
    raise ImportError("the compiled ppo takes a house rule's code 0 for its default")
_W1, _B1, _W2, _B2, _W3, _B3, _SCALE, _GATHER, _PARAMS, _RECOLOUR_IN, _RECOLOUR_OUT = _slots(
    [SHIPPED_KINDS[kind][1][t] for kind, t in _ENTRIES]
)
_SLOT_OF = np.array(
    [
        [
            _ENTRIES.index(e) if (e := shipped_entry(n, partners, episode, house)) is not None else -1
            for n in range(MAX_PLAYERS + 1)
        ]
        for house in (False, True)
        for partners in (False, True)
        for episode in ("round", "game")
    ],
    dtype=np.int64,
)


@kernel
def shipped_policy(obs, mask, P, prng, b):
    """The compiled policy ``ppo``: the greedy action of the policy of the shipped network
    for this table (:func:`shipped_network`, :func:`policy_logits`; averaged over the colours or
    in one pass, as its file says), -1 when none is shipped for it."""
    house = 0
    for k in _HOUSE_SLOTS[P[P_NUM_PLAYERS]]:
        if k >= 0 and P[k] != 0:
            house = 4
    row = house + (2 if P[P_PARTNERS] != 0 else 0) + (0 if P[P_EPISODE] == EPISODE_ROUND else 1)
    slot = _SLOT_OF[row, P[P_NUM_PLAYERS]]
    if slot < 0:
        return -1
    return policy_action(
        obs,
        mask,
        P,
        _W1[slot],
        _B1[slot],
        _W2[slot],
        _B2[slot],
        _W3[slot],
        _B3[slot],
        _SCALE[slot],
        _GATHER[slot],
        _PARAMS[slot],
        _RECOLOUR_IN[slot],
        _RECOLOUR_OUT[slot],
    )
