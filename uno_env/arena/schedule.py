"""Who plays whom: entrants (agent specs, checked), the seatings of a table and the
schedules of a tournament (mixed tables, rotating partners)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from uno_env.agents import make_agent, parse_agent_spec


@dataclass
class Entrant:
    label: str  # the spec as given, e.g. "ismcts:determinizations=64"
    name: str
    options: dict
    policy_id: int | None  # compiled policy id, None for Python agents


def make_entrants(specs: list[str], config) -> list[Entrant]:
    """Entrants of agent specs, checked (unknown names, bad options, duplicates)."""
    if not specs:
        raise ValueError("--agents: give at least one agent")
    seen = set()
    entrants = []
    for spec in specs:
        if spec in seen:
            raise ValueError(f"--agents: {spec!r} is listed twice")
        seen.add(spec)
        name, options = parse_agent_spec(spec)
        if name == "human":
            raise ValueError("--agents: 'human' plays in 'uno play', not in a tournament")
        agent = make_agent(spec, config, seed=0)  # checks the options now, in this process
        entrants.append(Entrant(spec, name, options, agent.policy_id))
    return entrants


def seatings(table: tuple[int, ...], orders: str) -> list[tuple[int, ...]]:
    """Every seating of a table: all orders (``permutations``) or its rotations."""
    n = len(table)
    if orders == "permutations":
        seen = []
        for perm in itertools.permutations(table):
            if perm not in seen:
                seen.append(perm)
        return seen
    return [tuple(table[(s + r) % n] for s in range(n)) for r in range(n)]


def mixed_lineups(num_agents: int, players: int, orders: str | None = None) -> list[tuple[int, ...]]:
    """Lineups (agent index per seat) of the ``mixed`` schedule; every agent sits in every
    seat equally often over the list."""
    if orders is None:
        orders = "permutations" if players <= 4 else "rotations"
    if num_agents >= players:
        tables = list(itertools.combinations(range(num_agents), players))
        lineups = []
        for table in tables:
            lineups += seatings(table, orders)
        return lineups
    lineups = []
    for j in range(num_agents):
        base = tuple((j + s) % num_agents for s in range(players))
        lineups += [tuple(base[(s + r) % players] for s in range(players)) for r in range(players)]
    return lineups


ROTATE_4 = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))
# How the 56 tables of the 8-player rotation are seated (bit 0: the second pair takes seats
# 0 and 2, bit 1 / bit 2: the first / second pair swap seats), found once by a seeded local
# search so that every player sits in every seat in 7 of its 28 hands (a test checks it).
ROTATE_8_SEATING = (
    2, 2, 6, 2, 0, 6, 2, 3, 0, 5, 5, 2, 6, 2, 1, 4, 0, 5, 7, 6, 5, 4, 3, 5, 0, 2, 5, 1,
    7, 5, 4, 1, 1, 0, 1, 0, 4, 6, 2, 4, 5, 0, 1, 4, 1, 6, 0, 4, 6, 5, 1, 7, 6, 1, 7, 7,
)  # fmt: skip


def rotate_hands(players: int) -> list[list[tuple[int, int, int, int]]]:
    """The R-VAR-ROTATE schedule: for each hand, the tables as player numbers by seat
    (seats 0 and 2 are partners, 1 and 3 are partners). 4 players: 3 hands at one table,
    each player partnering each other once. 8 players: 28 hands at two tables, from the
    7 perfect matchings of the round-robin circle method played four times with the
    pairs grouped into tables in different ways (the last grouping repeats the first);
    each player partners each other player in four hands and sits in every seat in 7."""
    if players == 4:
        return [[(a[0], b[0], a[1], b[1])] for a, b in ROTATE_4]
    if players != 8:
        raise ValueError(f"rotating partners (R-VAR-ROTATE) is for 4 or 8 players, got {players}")
    matchings = []
    for r in range(7):
        matchings.append([(7, r)] + [((r + i) % 7, (r - i) % 7) for i in range(1, 4)])
    groupings = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)), ((0, 1), (2, 3)))
    hands = []
    k = 0
    for grouping in groupings:
        for pairs in matchings:
            tables = []
            for x, y in grouping:
                tables.append(seat_pairs(pairs[x], pairs[y], ROTATE_8_SEATING[k]))
                k += 1
            hands.append(tables)
    return hands


def seat_pairs(a: tuple[int, int], b: tuple[int, int], option: int) -> tuple[int, int, int, int]:
    """Two pairs of partners at one table, as players by seat (a pair takes seats 0 and 2 or
    1 and 3), seated by the bits of a :data:`ROTATE_8_SEATING` entry."""
    if option & 1:
        a, b = b, a
    if option & 2:
        a = (a[1], a[0])
    if option & 4:
        b = (b[1], b[0])
    return (a[0], b[0], a[1], b[1])


@dataclass
class Schedule:
    kind: str
    players: int  # players in a game of the tournament (8 for two-table rotation)
    table_players: int  # seats at one table
    jobs: list[tuple[int, ...]]  # lineup (entrant index per seat) of every table game
    matches: list[list[tuple[int, int, int]]]  # per game of the tournament: (job, seat, player)
    match_players: list[tuple[int, ...]]  # entrant of each player of each game of the tournament
    per_cycle: int  # games of the tournament for every seating to come up equally often

    @property
    def num_matches(self) -> int:
        return len(self.matches)


def field_lineups(num_agents: int, players: int, partners: bool = False) -> list[tuple[int, ...]]:
    """Lineups of the ``field`` schedule: agent 0 in one seat (with ``partners``, both seats
    of one team: s and s + players/2) and one other agent in every other seat, each other
    agent in turn, agent 0 taking every seat (every team's seats) equally often."""
    if num_agents < 2:
        raise ValueError("--schedule field needs at least two agents: the first plays against the field of each other")
    positions = range(players // 2) if partners else range(players)
    lineups = []
    for other in range(1, num_agents):
        for s in positions:
            seats = {s, s + players // 2} if partners else {s}
            lineups.append(tuple(0 if seat in seats else other for seat in range(players)))
    return lineups


def build_schedule(
    kind: str, num_agents: int, players: int, games: int, orders: str | None = None, partners: bool = False
) -> Schedule:
    """The tables of a tournament of ``games`` games (rounded up to whole cycles)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"--games must be a positive integer, got {games!r}")
    if kind == "mixed":
        return cycled_schedule(kind, mixed_lineups(num_agents, players, orders), players, games)
    if kind == "field":
        return cycled_schedule(kind, field_lineups(num_agents, players, partners), players, games)
    if kind == "rotate":
        return rotate_schedule(num_agents, players, games)
    raise ValueError(f"--schedule must be 'mixed' or 'rotate', got {kind!r}")


def cycled_schedule(kind: str, lineups: list[tuple[int, ...]], players: int, games: int) -> Schedule:
    """One table game per lineup (a game of the tournament each), repeated in whole cycles."""
    cycles = -(-games // len(lineups))
    jobs = [lineup for _ in range(cycles) for lineup in lineups]
    matches = [[(j, s, s) for s in range(players)] for j in range(len(jobs))]
    return Schedule(kind, players, players, jobs, matches, list(jobs), len(lineups))


def rotate_schedule(num_agents: int, players: int, games: int) -> Schedule:
    """The ``rotate`` schedule (R-VAR-ROTATE): a game of the tournament is one rotation of
    :func:`rotate_hands`, its players drawn from the entrants."""
    hands = rotate_hands(players)
    # which entrant each player is: every combination of entrants (or, with fewer
    # entrants than players, each of them starting the repeated list); with 4 players
    # the seats also turn by one per round of combinations (3 hands cannot balance 4
    # seats), with 8 the schedule itself is seat-balanced
    if num_agents >= players:
        groups = list(itertools.combinations(range(num_agents), players))
    else:
        groups = [tuple((j + p) % num_agents for p in range(players)) for j in range(num_agents)]
    turns = 4 if players == 4 else 1
    per_cycle = len(groups) * turns
    cycles = -(-games // per_cycle)
    jobs: list[tuple[int, ...]] = []
    matches = []
    match_players = []
    for c in range(cycles * per_cycle):
        who = groups[c % len(groups)]
        matches.append(rotation(hands, who, (c // len(groups)) % turns, jobs))
        match_players.append(who)
    return Schedule("rotate", players, 4, jobs, matches, match_players, per_cycle)


def rotation(hands, who: tuple[int, ...], turn: int, jobs: list[tuple[int, ...]]) -> list[tuple[int, int, int]]:
    """One game of the ``rotate`` schedule: its table games are appended to ``jobs`` (the
    entrants ``who`` by player, seats turned by ``turn``); returns its (job, seat, player) entries."""
    match = []
    for tables in hands:
        for table in tables:
            seated = tuple(table[(seat - turn) % 4] for seat in range(4))
            match += [(len(jobs), seat, seated[seat]) for seat in range(4)]
            jobs.append(tuple(who[p] for p in seated))
    return match
