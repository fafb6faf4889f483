#!/usr/bin/env bash
# Experiment: the networks that know the house rules, uno_env/data/ppo_2p_house.npz and ppo_4p_house.npz
# Question: grown from the shipped 2- and 4-player networks (uno_env.agents.neural.grow) and trained on a mix of
#   settings (each house rule alone, all five, none), does `ppo` reach 1.15x the fair share against `tactical` at two
#   players and 1.05x at four, under Seven-O and under all five house rules?
# Seeds: --seed 1 (4 players) and 2 (2 players); a resumed run reseeds from the seed and the update.
# Machine and time: see docs/training.md, "The networks that know the house rules" (the project's 2-core machine,
#   one core to the training); each stretch resumes from the checkpoint committed in experiments/networks/house/.
# Result: see docs/training.md and experiments/networks/house/*_progress.csv (the learning curves).
# Commit: see experiments/README.md.
# Usage: experiments/networks/ppo_house.sh [PLAYERS [UPDATES]]: train PLAYERS (2 or 4) until update UPDATES,
#   resuming from runs/houseNp (else from the committed checkpoint, else from the shipped network).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-4}
stop=${2:-4000}
run=runs/house${n}p
saved=experiments/networks/house
order=$([ "$n" = 4 ] && echo play || echo clockwise)
seed=$([ "$n" = 4 ] && echo 1 || echo 2)
if [ ! -f $run/checkpoint.pt ] && [ -f $saved/ppo_${n}p_house.pt ]; then
  mkdir -p $run
  cp $saved/ppo_${n}p_house.pt $run/checkpoint.pt
  cp $saved/ppo_${n}p_house_progress.csv $run/progress.csv
fi
if [ -f $run/checkpoint.pt ]; then
  uno train --resume $run/checkpoint.pt --total-timesteps 100000000 --stop-after-update "$stop"
else
  uno train --num-players $n --seat-order $order --seed $seed --init-from uno_env/data/ppo_${n}p.npz \
    --house-mix off=0.1,stacking=0.1,seven_o=0.25,jump_in=0.1,draw_until_playable=0.1,force_play=0.1,all=0.25 \
    --house-bc-decisions 100000 --opponents tactical=0.8,tactical_v1=0.1,keeper=0.05,random_play=0.05 \
    --learning-rate 3e-4 --ent-coef 0.005 --num-envs 256 --num-minibatches 8 --update-epochs 4 --critic-warmup 10 \
    --eval-every 20 --eval-games 1000 --eval-opponents tactical --eval-house seven_o,all --checkpoint-every 10 \
    --threads 1 --total-timesteps 100000000 --run-name house${n}p --stop-after-update "$stop"
fi
