#!/usr/bin/env bash
# Experiment: the partners whole-game network, uno_env/data/ppo_4p_partners_game.npz (a team, points margin)
# Question: the partners hands network wins 48.0% of whole games as a team against a `tactical` team; trained on the
#   points margin as a team, does it win more than half?
# Seeds: stage 1 --seed 31, stage 2 --seed 33; the distillation --seed 1 (its default)
# Machine and time: the project's 2-core machine: stage 1 2.5 M decisions, 4 min; stage 2 11.6 M decisions, 22 min;
#   the distillation: not recorded
# Result: distilled, one pass: 60.85% [60.2, 61.5] of 20,000 whole games (seed 1) for a `ppo` team against a `tactical`
#   team (the averaged network: 60.9% [60.25, 61.6]; paired -0.1 [-0.7, +0.6] points)
# Commit: the network shipped at a652bf9 (2026-12-02), the distilled file at 69676e0 (2026-12-04)
# Docs: experiments/history/training.md, "The whole-game networks" (Partners) and "Distilling the averaging into the network"
# It starts from the partners hands network shipped before 2026-12-03 (clockwise, dd4d0f2), restored from git here.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p runs
git show dd4d0f2:uno_env/data/ppo_4p_partners.npz > runs/ppo_4p_partners_clockwise.npz
common="--num-players 4 --rules partners=true --learner-team --opponents tactical=0.8,keeper=0.1,random_play=0.1 \
  --learning-rate 5e-4 --ent-coef 0.005 --num-envs 512 --num-minibatches 4 --update-epochs 3 --threads 1 \
  --eval-opponents tactical"
# shellcheck disable=SC2086
uno train $common --reward margin --exp-name margin4pt --seed 31 --init-from runs/ppo_4p_partners_clockwise.npz \
  --critic-warmup 20 --total-timesteps 30000000 --eval-every 50 --eval-games 2000 --run-name margin4pt_s1 \
  --stop-after-update 150
# shellcheck disable=SC2086
uno train $common --episode game --reward margin --exp-name game4pt --seed 33 --init-from runs/margin4pt_s1/checkpoint.pt \
  --critic-warmup 10 --total-timesteps 15000000 --eval-every 30 --eval-games 1000 --run-name game4pt_s2 \
  --stop-after-update 700
python -m experiments.distill_colours --num-players 4 --rules partners=true --episode game \
  --init-from runs/game4pt_s2/policies/policy_00700.npz --eval-games 0 --run-name d4ptg
cp runs/d4ptg/policy.npz uno_env/data/ppo_4p_partners_game.npz
