#!/usr/bin/env python3
"""A heuristic UNO player for uno-env's agent protocol (docs/PROTOCOL.md), standard library only.

    uno tournament --agents 'cmd:python examples/bots/heuristic_bot.py',random_play --players 2

Written from docs/PROTOCOL.md's field names alone (its section "A heuristic player" has the
bot's figures against random_play and tactical). Its rules of thumb, by phase: play: call UNO
when offered; play the card that keeps most cards of the colour it leaves, preferring a Skip,
Reverse or Draw Two with two players (play again) or when the next seat is close to going
out, a colour the next seat drew on and a colour with few cards unseen; hold back W and W+4,
never bluff a W+4; draw when nothing fits. drawn: play the drawn card. color: name the
colour held most. challenge: challenge when the offender did not draw on the colour it left
and still holds three cards or more. catch: catch every opponent. penalty: stack when
possible. swap: take the smallest hand. jump: jump in.
"""

import json
import sys

RANK_POINTS = {"S": 20, "R": 20, "+2": 20, "W": 50, "W+4": 50, "FT": 50}
COLOURS = "RYGB"


def one_hot(values) -> int:
    """The index of the 1 of a one-hot field, -1 when there is none."""
    return values.index(1) if 1 in values else -1


class Table:
    """What the hello said: the labels of the fields, the rules."""

    def __init__(self, hello: dict):
        self.labels = hello["observation_labels"]
        self.rules = hello["rules"]
        self.n = hello["num_players"]

    def hand(self, obs: dict) -> list:
        """The cards held: ``hand`` counts copies per face, named by its labels."""
        return [face for face, count in zip(self.labels["hand"], obs["hand"]) for _ in range(count)]

    def phase(self, obs: dict) -> str:
        return self.labels["phase"][one_hot(obs["phase"])]

    def colour(self, obs: dict) -> str:
        index = one_hot(obs["colour"])
        return COLOURS[index] if index >= 0 else ""


def colour_of(card: str) -> str:
    return card[0] if card[0] in COLOURS else ""


def points(card: str) -> int:
    rank = card if not colour_of(card) else card[1:]
    return RANK_POINTS.get(rank, int(rank) if rank.isdigit() else 0)


def best_colour(hand: list) -> str:
    """The colour held most (ties: the order R, Y, G, B)."""
    counts = {c: sum(colour_of(card) == c for card in hand) for c in COLOURS}
    return max(COLOURS, key=lambda c: counts[c])


def play_score(card: str, named: str, hand: list, table: Table, obs: dict) -> float:
    """How good it is to play ``card`` (naming ``named`` for a wild) now."""
    left = colour_of(card) or named
    rest = list(hand)
    rest.remove(card)
    score = 2.0 * sum(colour_of(c) == left for c in rest)
    sizes = obs["hand_sizes"]
    step = 1 if obs["direction"][0] > 0 else table.n - 1  # the seat that plays next, from ours
    threat = min(sizes[1:]) <= 2
    action = colour_of(card) and card[1:] in ("S", "R", "+2")
    if action and (sizes[step] <= 3 or table.n == 2):
        score += 8.0 if table.n == 2 and sizes[step] > 3 else 15.0  # play again, or slow a threat
    if not colour_of(card):
        score -= 5.0 if threat or len(hand) <= 2 else 30.0  # keep wilds for when they matter
    if threat:
        score += points(card) / 5.0  # lose fewer points if someone goes out
    if obs["drew_on"][step][COLOURS.index(left)]:
        score += 6.0  # the next seat drew on that colour: it probably holds none
    played = sum(n for face, n in zip(table.labels["discard_pile"], obs["discard_pile"]) if colour_of(face) == left)
    unseen = 25 - played - sum(colour_of(c) == left for c in hand)
    return score - 0.3 * unseen  # fewer of that colour left for the others


def choose_play(legal: list, table: Table, obs: dict):
    hand = table.hand(obs)
    holds_colour = any(colour_of(card) == table.colour(obs) for card in hand)
    best, best_score = None, None
    for item in legal:
        words = item["action"].split()
        if words[0] != "play":
            continue
        card, named = words[1], words[2] if len(words) > 2 else ""
        if card == "W+4" and holds_colour:
            continue  # that would be a bluff, and a challenge costs 4 cards
        if named and named != best_colour([c for c in hand if c != card] or hand):
            continue  # one wild, one colour: the one held most
        score = play_score(card, named, hand, table, obs)
        if best_score is None or score > best_score:
            best, best_score = item, score
    return best


def decide(message: dict, table: Table):
    """The id of the action to take."""
    obs, legal = message["observation"], message["legal"]
    by_text = {item["action"]: item["id"] for item in legal}
    phase = table.phase(obs)
    if "uno" in by_text:
        return by_text["uno"]  # a decision of its own: the same seat then plays
    if phase == "color":
        return by_text["color " + best_colour(table.hand(obs))]
    if phase == "challenge":
        offender = (table.n - 1) if obs["direction"][0] > 0 else 1  # the seat that played the W+4
        previous = one_hot(obs["previous_colour"])
        drew = obs["drew_on"][offender][previous] if previous >= 0 else 0
        honest = drew or obs["hand_sizes"][offender] < 3
        return by_text["accept" if honest else "challenge"]
    if phase == "catch":
        exposed = one_hot(obs["exposed"])
        partner = table.rules["partners"] and exposed == table.n // 2
        return by_text["pass" if partner or "catch" not in by_text else "catch"]
    if phase == "swap":
        sizes = obs["hand_sizes"]
        seats = [int(text.split()[1]) for text in by_text if text.startswith("swap")]
        return by_text[f"swap {min(seats, key=lambda k: sizes[k])}"]
    if phase == "drawn":
        plays = [item for item in legal if item["action"].startswith("play")]
        choice = choose_play(plays, table, obs) or (plays[0] if "pass" not in by_text else None)
        return choice["id"] if choice else by_text["pass"]
    choice = choose_play(legal, table, obs)
    if choice is not None:
        return choice["id"]
    for fallback in ("draw", "accept", "pass"):  # play / jump / penalty with no card worth playing
        if fallback in by_text:
            return by_text[fallback]
    return legal[0]["id"]


def main() -> None:
    table = None
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            table = Table(message)
            answer = {"type": "ready", "name": "heuristic_bot.py"}
        elif message["type"] == "decision":
            answer = {"action": decide(message, table)}
        else:  # round_end, game_end: nothing to answer
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
