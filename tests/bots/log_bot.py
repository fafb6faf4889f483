"""A bot for the tests of the agent protocol: plays the first legal action (by its text) and,
given a path, writes every line it reads (``> ``) and writes (``< ``) to that file; with
``--text`` it asks for the decisions in words."""

import json
import sys


def main() -> None:
    paths = [a for a in sys.argv[1:] if a != "--text"]
    log = open(paths[0], "w", encoding="utf-8") if paths else None  # noqa: SIM115
    for line in sys.stdin:
        if log:
            log.write("> " + line)
        message = json.loads(line)
        if message["type"] == "hello":
            answer = {"type": "ready", "name": "log_bot", **({"text": True} if "--text" in sys.argv else {})}
        elif message["type"] == "decision":
            answer = {"action": message["legal"][0]["action"]}
        else:
            continue
        text = json.dumps(answer)
        if log:
            log.write("< " + text + "\n")
            log.flush()
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
