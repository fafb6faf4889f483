#!/usr/bin/env bash
# Experiment: the four-player whole-game network, uno_env/data/ppo_4p_game.npz (trained on each hand's points margin)
# Question: trained on the points margin, does a four-player network win more than its share of whole games?
# Seeds: stage 1 --seed 12, stage 2 --seed 22; the distillation --seed 1 (its default)
# Machine and time: the project's 2-core machine, beside the two-player run (one core each): stage 1 4.1 M decisions,
#   9 min; stage 2 15.0 M decisions, 39 min; the distillation: not recorded
# Result: distilled, one pass: 29.1% [28.5, 29.75] of 20,000 whole games (seed 1) against `tactical` (the averaged
#   network: 29.6% [29.0, 30.2]; paired on the same games -0.5 [-1.0, +0.05] points)
# Commit: the network shipped at 1507687 (2026-12-02), the distilled file at 69676e0 (2026-12-04)
# Docs: experiments/history/training.md, "The whole-game networks" and "Distilling the averaging into the network"
# It starts from the four-player hands network shipped before 2026-12-03 (clockwise, d4bd4c4), restored from git here.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p runs
git show d4bd4c4:uno_env/data/ppo_4p.npz > runs/ppo_4p_clockwise.npz
common="--opponents tactical=0.8,keeper=0.1,random_play=0.1 --learning-rate 5e-4 --ent-coef 0.005 \
  --num-envs 512 --num-minibatches 4 --update-epochs 3 --threads 1 --eval-opponents tactical"
# shellcheck disable=SC2086
uno train --num-players 4 --reward margin --exp-name margin4p --seed 12 --init-from runs/ppo_4p_clockwise.npz \
  --critic-warmup 20 $common --total-timesteps 30000000 --eval-every 20 --eval-games 2000 \
  --run-name margin4p_s1 --stop-after-update 250
# shellcheck disable=SC2086
uno train --num-players 4 --episode game --reward margin --exp-name game4p --seed 22 \
  --init-from runs/margin4p_s1/checkpoint.pt --critic-warmup 10 $common --total-timesteps 15000000 \
  --eval-every 30 --eval-games 1000 --run-name game4p_s1
python -m experiments.distill_colours --num-players 4 --episode game --init-from runs/game4p_s1/policies/policy_00912.npz \
  --eval-games 0 --run-name d4pg
cp runs/d4pg/policy.npz uno_env/data/ppo_4p_game.npz
