#!/usr/bin/env bash
# Experiment: the two-player hands network, uno_env/data/ppo_2p.npz
# Question: can masked PPO from a warm start on `tactical` beat `tactical` at two-player hands (>= 55%, interval above 50%)?
# Seeds: stages 1-4 --seed 1, 2, 3, 4; the soup is deterministic; the distillation --seed 1 (its default)
# Machine and time: the project's 2-core machine shared with other jobs, torch CPU 2.13.0, no GPU:
#   about 100 min for the four stages (29.5 M learner decisions), seconds for the soup, minutes for the distillation
# Result: distilled, one pass: 60.5% [59.8, 61.2] against `tactical`, 20,000 hands, seed 1 (the averaged soup it
#   was fitted to: 61.2% [60.5, 61.9]; the soup alone: 57.1% [56.4, 57.8])
# Commit: the soup shipped at d89f3b7 (2026-11-30; format 2 at be670fe), the distilled file at f6a86b1 (2026-12-04)
# Docs: experiments/history/training.md, "How it was trained" (the stages) and "Distilling the averaging into the network"
# Stages 1 and 2 were stopped by hand and resumed (at updates 50 and 125); this script stops and resumes at the
# same updates (a resumed run reseeds from the seed and the update: reproducible, not the same as one unbroken run).
set -euo pipefail
cd "$(dirname "$0")/../.."
uno train --seed 1 --bc-decisions 500000 --opponents tactical=0.5,keeper=0.1,random_play=0.05,snapshot=0.25,latest=0.1 \
  --eval-every 20 --run-name s1 --stop-after-update 50
uno train --resume runs/s1/checkpoint.pt --stop-after-update 125
uno train --seed 2 --init-from runs/s1/checkpoint.pt --learning-rate 7e-4 --num-minibatches 8 --update-epochs 4 \
  --ent-coef 0.003 --opponents tactical=0.6,keeper=0.1,random_play=0.05,snapshot=0.2,latest=0.05 --eval-every 15 \
  --total-timesteps 30000000 --run-name s2 --stop-after-update 125
uno train --resume runs/s2/checkpoint.pt --stop-after-update 150
uno train --seed 3 --init-from runs/s2/checkpoint.pt --num-envs 768 --learning-rate 7e-4 --num-minibatches 8 \
  --update-epochs 4 --ent-coef 0.003 --opponents tactical=0.6,keeper=0.1,random_play=0.05,snapshot=0.2,latest=0.05 \
  --eval-every 15 --total-timesteps 30000000 --run-name s3 --stop-after-update 125
uno train --seed 4 --init-from runs/s3/checkpoint.pt --num-envs 768 --learning-rate 1e-3 --num-minibatches 8 \
  --update-epochs 4 --ent-coef 0.02 --opponents tactical=0.7,random_play=0.2,keeper=0.1 --eval-every 15 \
  --total-timesteps 40000000 --run-name s4 --stop-after-update 1380
python -m experiments.soup runs/soup_2p.npz runs/s4/policies/policy_01{260,275,290,305,320,335,350,365,380}.npz
python -m experiments.distill_colours --num-players 2 --init-from runs/soup_2p.npz --eval-games 0 --run-name d2p
cp runs/d2p/policy.npz uno_env/data/ppo_2p.npz
