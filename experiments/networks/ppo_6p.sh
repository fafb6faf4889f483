#!/usr/bin/env bash
# Experiment: the six-player hands network, uno_env/data/ppo_6p.npz (also played at 7 to 10 players)
# Question: carried over from the four-player network and trained on at six players, does it reach 1.10x the fair share against `tactical`?
# Seeds: --seed 1; the soup is deterministic; the distillation --seed 1 (its default)
# Machine and time: the project's 2-core machine beside a second run: 17.7 M decisions, 33 min; the distillation: not recorded
# Result: distilled, one pass: 18.5% [18.0, 19.1] against `tactical`, ratio 1.11, 20,000 hands, seed 1 (the averaged
#   soup: 18.8% [18.2, 19.3], ratio 1.13 [1.09, 1.16]): target 1.10 met
# Commit: the soup shipped at a843c71 (2026-12-03), the distilled file at 0841acd (2026-12-04)
# Docs: experiments/history/training.md, "The six-player network" and "Distilling the averaging into the network"
# It starts from the four-player soup shipped at 206ee4c (ppo_4p.sh's runs/soup_4p.npz rebuilds it), restored from git here.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p runs
git show 206ee4c:uno_env/data/ppo_4p.npz > runs/ppo_4p_206ee4c.npz
uno train --num-players 6 --seat-order play --exp-name six6p_play --seed 1 \
  --init-from runs/ppo_4p_206ee4c.npz --critic-warmup 15 \
  --opponents tactical=0.8,keeper=0.1,random_play=0.1 --learning-rate 5e-4 --ent-coef 0.005 \
  --num-envs 512 --num-minibatches 4 --update-epochs 3 --threads 1 --total-timesteps 40000000 \
  --eval-every 20 --eval-games 1000 --eval-opponents tactical --run-name six6p_play --stop-after-update 1080
python -m experiments.soup runs/soup_6p.npz \
  $(for u in $(seq 600 20 1080); do printf "runs/six6p_play/policies/policy_%05d.npz " $u; done)
python -m experiments.distill_colours --num-players 6 --init-from runs/soup_6p.npz --eval-games 0 --run-name d6p
cp runs/d6p/policy.npz uno_env/data/ppo_6p.npz
