#!/usr/bin/env bash
# Experiment: the networks that know the house rules, uno_env/data/ppo_2p_house.npz and ppo_4p_house.npz
# Question: grown from the shipped 2- and 4-player networks (uno_env.agents.neural.grow) and trained on a mix of
#   settings (each house rule alone, all five, none), does `ppo` reach 1.15x the fair share against `tactical` at two
#   players and 1.05x at four, under Seven-O and under all five house rules?
# Seeds: --seed 1 (4 players) and 2 (2 players), stage 2 --seed 11 and 12, stage 3 --seed 21 and 22; the
#   distillation its --seed 1; a resumed run reseeds from the seed and the update.
# Machine and time: see docs/training.md, "The networks that know the house rules" (the project's 2-core machine,
#   one core to the training); each stretch resumes from the checkpoints committed in experiments/networks/house/.
# Result: see docs/training.md and experiments/networks/house/*_progress.csv (the learning curves).
# Commit: see experiments/README.md.
# Usage: experiments/networks/ppo_house.sh [PLAYERS [UPDATES]] (none: 4 to 780, then 2 to 720, the shipped files'
#   updates): train PLAYERS (2 or 4): stage 1 to update 240, stage 2
#   to update 400, the distillation of `tactical`'s Seven-O choices into the network (experiments/house_distill.py),
#   then stage 3 until its update UPDATES (default 4000); each stage resumed from runs/houseNp[_s2|_d|_s3] where it
#   is, else from the checkpoint committed in experiments/networks/house/, else started from the stage before
#   (stage 1 from the shipped network).
set -euo pipefail
if [ $# -eq 0 ]; then  # both tables, to the updates of the shipped files
  bash "$0" 4 780
  bash "$0" 2 720
  exit 0
fi
cd "$(dirname "$0")/../.."
n=${1:-4}
stop=${2:-4000}
saved=experiments/networks/house
order=$([ "$n" = 4 ] && echo play || echo clockwise)
seed=$([ "$n" = 4 ] && echo 1 || echo 2)
mix=off=0.1,stacking=0.1,seven_o=0.25,jump_in=0.1,draw_until_playable=0.1,force_play=0.1,all=0.25
common=(--opponents tactical=0.8,tactical_v1=0.1,keeper=0.05,random_play=0.05 --num-envs 256
  --num-minibatches 8 --update-epochs 4 --eval-every 20 --eval-games 1000 --eval-opponents tactical
  --eval-house seven_o,all --checkpoint-every 10 --threads 1 --total-timesteps 100000000)

# run NAME STOP ARGS...: resume runs/NAME (or its committed checkpoint) until update STOP, else start it with ARGS
run() {
  local name=$1 until=$2
  shift 2
  if [ ! -f runs/$name/checkpoint.pt ] && [ -f $saved/$name.pt ]; then
    mkdir -p runs/$name
    cp $saved/$name.pt runs/$name/checkpoint.pt
    cp $saved/${name}_progress.csv runs/$name/progress.csv
  fi
  if [ -f runs/$name/checkpoint.pt ]; then
    uno train --resume runs/$name/checkpoint.pt --total-timesteps 100000000 --stop-after-update "$until"
  else
    uno train "$@" --run-name $name --stop-after-update "$until"
  fi
}

# has NAME: the stage's checkpoint is here (runs/) or committed
has() { [ -f runs/$1/checkpoint.pt ] || [ -f $saved/$1.pt ]; }
# fetch NAME: its committed checkpoint into runs/ unless there is one
fetch() { [ -f runs/$1/checkpoint.pt ] || { mkdir -p runs/$1; cp $saved/$1.pt runs/$1/checkpoint.pt; }; }

s1=house${n}p s2=house${n}p_s2 distilled=house${n}p_d s3=house${n}p_s3
if ! has $s2 && ! has $distilled && ! has $s3; then
  run $s1 240 --num-players $n --seat-order $order --seed $seed --init-from uno_env/data/ppo_${n}p.npz \
    --house-bc-decisions 100000 --learning-rate 3e-4 --ent-coef 0.005 --critic-warmup 10 --house-mix $mix "${common[@]}"
fi
if ! has $distilled && ! has $s3; then
  has $s2 || fetch $s1
  run $s2 400 --num-players $n --seat-order $order --seed $((seed + 10)) \
    --init-from runs/$s1/checkpoint.pt --learning-rate 1e-3 --ent-coef 0.01 --house-mix $mix "${common[@]}"
  python -m experiments.house_distill --checkpoint runs/$s2/checkpoint.pt \
    --decisions 300000 --epochs 12 --learning-rate 3e-4 --changed-weight 2 --run-name $distilled
fi
has $s3 || fetch $distilled
mix3=off=0.05,stacking=0.05,seven_o=0.35,jump_in=0.05,draw_until_playable=0.05,force_play=0.05,all=0.4
run $s3 "$stop" --num-players $n --seat-order $order --seed $((seed + 20)) \
  --init-from runs/$distilled/checkpoint.pt --learning-rate 2e-4 --ent-coef 0.005 --house-mix $mix3 "${common[@]}"
# the shipped file: the soup of stage 3's evaluated policies (this stretch: two players updates 600-720, four
# 560-780), played under Seven-O (alone or with other house rules): measured below the networks trained without the
# house rules under the four others alone (docs/training.md)
first=$([ "$n" = 4 ] && echo 560 || echo 600)
last=$([ "$n" = 4 ] && echo 780 || echo 720)
target=uno_env/data/ppo_2p_house.npz
[ "$n" = 4 ] && target=uno_env/data/ppo_4p_house.npz
if [ -f runs/$s3/policies/policy_$(printf %05d $last).npz ]; then
  python -m experiments.soup $target --meta 'plays_under=["seven_o"]' \
    $(for u in $(seq $first 20 $last); do printf "runs/$s3/policies/policy_%05d.npz " $u; done)
fi
