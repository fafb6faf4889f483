#!/usr/bin/env python3
"""A random UNO player for uno-env's agent protocol (docs/PROTOCOL.md), in Python's standard library only.

    uno tournament --agents 'cmd:python examples/bots/random_bot.py',tactical --players 2

It reads one JSON object per line on stdin and answers some with one line on stdout:
``{"type": "ready", ...}`` to each ``hello`` (which starts a game), ``{"action": id}`` to each
``decision`` (a legal action at random, from a generator seeded with the hello's seed, so
that one seed gives one game). It ignores ``round_end`` and ``game_end`` and exits when its
input ends. It imports nothing from uno-env: any program that reads and writes such lines
can take a seat.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            rng.seed(message["seed"])
            answer = {"type": "ready", "name": "random_bot.py"}
        elif kind == "decision":
            answer = {"action": rng.choice(message["legal"])["id"]}
        else:  # round_end, game_end: nothing to answer
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
