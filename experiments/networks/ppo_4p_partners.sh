#!/usr/bin/env bash
# Experiment: the partners hands network, uno_env/data/ppo_4p_partners.npz (the learner plays both seats of a team)
# Question: from the four-player network, does a team trained as a team win 55% of hands against a `tactical` team?
# Seeds: stage 1 --seed 1, stage 2 --seed 7; the soups are deterministic; the distillation --seed 1 (its default)
# Machine and time: the project's 2-core machine beside a second run: stage 1 34.1 M decisions, 56 min; stage 2
#   25.0 M decisions, 63 min; the distillation: not recorded
# Result: distilled, one pass: 54.8% [54.15, 55.5] for a `ppo` team against a `tactical` team, ratio 1.10, 20,000 hands,
#   seed 1 (the averaged stage-2 soup: 55.1% [54.4, 55.8]): target 55% missed by the point estimate, inside the interval
# Commit: the stage-1 soup shipped at aefa7bd, the stage-2 soup at 29aaba7 (2026-12-03), the distilled file at 0841acd (2026-12-04)
# Docs: experiments/history/training.md, "The partners network" and "Distilling the averaging into the network"
# It starts from the four-player soup shipped at 206ee4c (ppo_4p.sh's runs/soup_4p.npz rebuilds it), restored from git here.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p runs
git show 206ee4c:uno_env/data/ppo_4p.npz > runs/ppo_4p_206ee4c.npz
uno train --num-players 4 --rules partners=true --learner-team --seat-order play --exp-name team4p_play --seed 1 \
  --init-from runs/ppo_4p_206ee4c.npz --critic-warmup 15 \
  --opponents tactical=0.8,keeper=0.1,random_play=0.1 --learning-rate 5e-4 --ent-coef 0.005 \
  --num-envs 512 --num-minibatches 4 --update-epochs 3 --threads 1 --total-timesteps 60000000 \
  --eval-every 20 --eval-games 2000 --eval-opponents tactical --run-name team4p_play --stop-after-update 2060
python -m experiments.soup runs/ppo_4p_partners_s1.npz \
  $(for u in $(seq 1700 20 2060); do printf "runs/team4p_play/policies/policy_%05d.npz " $u; done)
uno train --num-players 4 --rules partners=true --learner-team --seat-order play --exp-name team4p_cont --seed 7 \
  --init-from runs/ppo_4p_partners_s1.npz --critic-warmup 30 \
  --opponents tactical=0.8,keeper=0.1,random_play=0.1 --learning-rate 2e-4 --ent-coef 0.005 \
  --num-envs 512 --num-minibatches 4 --update-epochs 3 --threads 1 --total-timesteps 25000000 \
  --eval-every 20 --eval-games 1000 --eval-opponents tactical --run-name team4p_cont
python -m experiments.soup runs/soup_4p_partners.npz \
  $(for u in $(seq 1000 20 1500); do printf "runs/team4p_cont/policies/policy_%05d.npz " $u; done) \
  runs/team4p_cont/policies/policy_01513.npz
python -m experiments.distill_colours --num-players 4 --rules partners=true --init-from runs/soup_4p_partners.npz \
  --eval-games 0 --run-name d4pt
cp runs/d4pt/policy.npz uno_env/data/ppo_4p_partners.npz
