#!/usr/bin/env node
// A random UNO player for uno-env's agent protocol (docs/PROTOCOL.md), in plain Node.js.
//
//     uno tournament --agents 'cmd:node examples/bots/random_bot.js',tactical --players 2
//
// It reads one JSON object per line on stdin and answers some with one line on stdout:
// {"type": "ready", ...} to each hello (which starts a game), {"action": "<text>"} to each
// decision (a legal action at random, from a generator seeded with the hello's seed, so
// that one seed gives one game). It ignores round_end and game_end and exits when its
// input ends.
"use strict";

const readline = require("readline");

// mulberry32 over the low 32 bits of the seed (a seed above 2**53 arrives rounded, the same
// way every time)
function generator(seed) {
  let state = Number(BigInt.asUintN(32, BigInt(seed)));
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = generator(0);
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  let answer = null;
  if (message.type === "hello") {
    random = generator(message.seed);
    answer = { type: "ready", name: "random_bot.js" };
  } else if (message.type === "decision") {
    const legal = message.legal;
    answer = { action: legal[Math.floor(random() * legal.length)].action };
  }
  if (answer !== null) {
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
});
lines.on("close", () => process.exit(0));
