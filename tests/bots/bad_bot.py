"""A bot that misbehaves on purpose, for the tests of outside agents: ``bad_bot.py MODE [K]``.

Until its K-th decision (default 1) of a game it plays the first legal action; from then on:

* ``die``: exits with status 3 (after a line on stderr);
* ``stall``: stops answering (sleeps);
* ``slow``: answers each decision after 0.1 s;
* ``garbage``: writes a line that is not JSON;
* ``wrong_card``: plays a card it holds that does not match, whenever it holds one;
* ``not_available``: answers an action that is not a card and not legal now;
* ``bad_ready``: answers hello with something else than ready;
* ``stubborn``: plays well but ignores SIGTERM and the end of its input (it must be killed);
* ``marker``: plays well (K is a word that marks its command line).
"""

import json
import signal
import sys
import time


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def wrong_card(message: dict, labels: dict) -> str | None:
    legal = {item["action"] for item in message["legal"]}
    hand = message["observation"]["hand"]
    for face, count in enumerate(hand):
        card = labels["hand"][face]
        action = f"play {card} R" if card.startswith(("W", "FT")) else f"play {card}"
        if count and action not in legal and any(a.startswith("play ") for a in legal):
            return action
    return None


def main() -> None:
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 1
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    labels: dict = {}
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            labels = message["observation_labels"]
            decisions = 0
            say("ready? no" if mode == "bad_ready" else json.dumps({"type": "ready"}))
            continue
        if message["type"] != "decision":
            continue
        decisions += 1
        answer = message["legal"][0]["action"]
        if decisions >= at:
            if mode == "die":
                print("bad_bot: dying on purpose", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "stall":
                time.sleep(3600)
            if mode == "slow":
                time.sleep(0.1)
            if mode == "garbage":
                say("this is not JSON")
                continue
            if mode == "wrong_card":
                answer = wrong_card(message, labels) or answer
            if mode == "not_available":
                legal = {item["action"] for item in message["legal"]}
                answer = next(a for a in ("challenge", "catch", "accept", "draw") if a not in legal)
        say(json.dumps({"action": answer}))
    if mode == "stubborn":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
