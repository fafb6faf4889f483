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
* ``marker``: plays well (K is a word that marks its command line);
* ``illegal_id``: answers an action id that no table has;
* ``not_held``: plays a card it does not hold;
* ``huge_line``: writes a line of 5 MB;
* ``two_lines``: answers twice (two lines for one decision);
* ``before_hello``: writes a line as it starts, before it is asked anything;
* ``hello_junk``: answers hello with a line that is not JSON, then with ``ready``;
* ``debug_before``: writes a debug line (not JSON) before each answer, in a write of its own;
* ``debug_after``: writes a debug line (not JSON, made from the decision: it takes a moment)
  after each answer, in a write of its own;
* ``close_output``: closes its output and keeps running;
* ``setsid``: first starts a child that leaves its process group and session
  (``setsid``) and sleeps (K is a word that marks the child's command line), then dies
  at the 3rd decision of a game;
* ``daemon``: as ``setsid``, but plays well;
* ``learner``: plays well, each answer chosen from what it saw in the games before (it
  keeps state across games: its results depend on which games it plays, in which order).

With K ``stubborn``, any mode also ignores SIGTERM. Words after K are not read (a test's marker).
"""

import json
import os
import signal
import subprocess
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


def not_held(message: dict, labels: dict) -> str:
    hand = message["observation"]["hand"]
    face = next(face for face, count in enumerate(hand) if not count)
    card = labels["hand"][face]
    return f"play {card} R" if card.startswith(("W", "FT")) else f"play {card}"


def start(mode: str, word: str) -> None:
    """What a mode does as the program starts."""
    if mode == "stubborn" or word == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "before_hello":
        say(json.dumps({"type": "ready"}))
    if mode in ("setsid", "daemon"):
        sleeper = "import time; time.sleep(3600)"
        subprocess.Popen([sys.executable, "-c", sleeper, word], start_new_session=True)  # noqa: S603


def misbehave(mode: str, message: dict, labels: dict, answer):
    """The answer of a misbehaving ``mode`` to a decision (None: it answered already)."""
    if mode == "die":
        print("bad_bot: dying on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "stall":
        time.sleep(3600)
    if mode == "slow":
        time.sleep(0.1)
    if mode == "garbage":
        say("this is not JSON")
        return None
    if mode == "wrong_card":
        return wrong_card(message, labels) or answer
    if mode == "not_available":
        legal = {item["action"] for item in message["legal"]}
        return next(a for a in ("challenge", "catch", "accept", "draw") if a not in legal)
    if mode == "illegal_id":
        return 1_000_000
    if mode == "not_held":
        return not_held(message, labels)
    if mode == "huge_line":
        say(json.dumps({"action": answer, "padding": "x" * (5 << 20)}))
        return None
    if mode == "two_lines":
        say(json.dumps({"action": answer}) + "\n" + json.dumps({"action": answer}))
        return None
    if mode == "close_output":
        os.close(1)
        time.sleep(3600)
    return answer


def main() -> None:
    mode = sys.argv[1]
    word = sys.argv[2] if len(sys.argv) > 2 else ""
    at = int(word) if word.isdigit() else 1
    start(mode, word)
    labels: dict = {}
    decisions = 0
    seen = 0  # learner: what it has seen, over every game so far
    for line in sys.stdin:
        message = json.loads(line)
        seen = (seen * 31 + len(line)) % 1_000_003
        if message["type"] == "hello":
            labels = message["observation_labels"]
            decisions = 0
            if mode == "hello_junk":
                say("hello to you too")
            say("ready? no" if mode == "bad_ready" else json.dumps({"type": "ready"}))
            continue
        if message["type"] != "decision":
            continue
        decisions += 1
        answer = message["legal"][0]["action"]
        if mode == "setsid" and decisions >= 3:
            sys.exit(3)
        if mode == "learner":
            answer = message["legal"][seen % len(message["legal"])]["action"]
        if decisions >= at:
            answer = misbehave(mode, message, labels, answer)
            if answer is None:
                continue
        if mode == "debug_before" and decisions >= at:
            say(f"debug: decision {decisions}, {len(message['legal'])} legal actions")
        say(json.dumps({"action": answer}))
        if mode == "debug_after" and decisions >= at:
            say(f"debug: answered {answer!r} to {json.dumps(message)[:200]}")
    if mode == "stubborn":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
