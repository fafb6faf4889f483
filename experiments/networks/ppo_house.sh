#!/usr/bin/env bash
# Experiment: the networks that know the house rules, uno_env/data/ppo_2p_house.npz and ppo_4p_house.npz
# Question: grown from the shipped 2- and 4-player networks (uno_env.agents.neural.grow) and trained on a mix of
#   settings (each house rule alone, all five, none), does `ppo` reach 1.15x the fair share against `tactical` at two
#   players and 1.05x at four, under Seven-O and under all five house rules?
# Seeds: --seed 1 (4 players) and 2 (2 players), stage 2 --seed 11 and 12, stage 3 --seed 21 and 22, stage 4
#   --seed 31 and 32, stage 5 --seed 41, stage 6 --seed 51; the distillations their --seed 1; a resumed run
#   reseeds from the seed and the update.
# Machine and time: see docs/training.md, "The networks that know the house rules" (the project's 2-core machine,
#   one core to each training run); each stretch resumes from the checkpoints committed in experiments/networks/house/.
# Result: see docs/training.md and experiments/networks/house/*_progress.csv (the learning curves).
# Commit: see experiments/README.md.
# Usage: experiments/networks/ppo_house.sh [PLAYERS [UPDATES [LINE]]] (none: 4 to 780 along line a and on to 1200
#   along line c, then 2 to 1000 along line b, the shipped files' runs): train PLAYERS (2 or 4) along LINE, each
#   stage resumed from runs/houseNp[_s2|...] where it is, else from the checkpoint committed in
#   experiments/networks/house/, else started from the stage before (stage 1 from the shipped network); the last
#   stage runs until its update UPDATES (default 4000).
#   LINE a: stage 1 to update 240, stage 2 to update 400, the distillation of `tactical`'s Seven-O choices into
#     the network (experiments/house_distill.py, Seven-O and all five), stage 3 (the first files, its soups);
#   LINE b (the two-player file): stage 1, the distillation at every setting (general play anchored), stage 4
#     (learning rate 2e-4), its soup;
#   LINE c (the four-player file): stage 3's checkpoint distilled again at every setting, stage 5 (learning rate
#     1e-4), its soup;
#   LINE d (four players): line c's distilled network, stage 6 (four times the batch: 1,024 games, 65,536
#     decisions an update). Lines b, c and d were the second stretch's (docs/training.md).
set -euo pipefail
if [ $# -eq 0 ]; then  # both tables, to the updates of the shipped files
  bash "$0" 4 780 a
  bash "$0" 4 1200 c
  bash "$0" 2 1000 b
  exit 0
fi
cd "$(dirname "$0")/../.."
n=${1:-4}
stop=${2:-4000}
line=${3:-a}
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
# soup RUN FIRST LAST PLAYS_UNDER TARGET: the shipped file, the mean of RUN's evaluated policies FIRST..LAST, once
# the run has reached LAST; PLAYS_UNDER: the house rules it was measured not to lose under (docs/training.md)
soup() {
  [ -f runs/$1/policies/policy_$(printf %05d $3).npz ] || return 0
  python -m experiments.soup "$5" --meta "plays_under=$4" \
    $(for u in $(seq $2 20 $3); do printf "runs/$1/policies/policy_%05d.npz " $u; done)
}

all_tables=off,stacking,seven_o,jump_in,draw_until_playable,force_play,all
if [ "$line" = b ]; then  # stage 1, then the distillation anchored at every setting, then stage 4
  if ! has house${n}p_d1 && ! has house${n}p_s4; then
    [ -f runs/house${n}p/checkpoint.pt ] || { echo "line b: stage 1's runs/house${n}p/checkpoint.pt first" >&2; exit 2; }
    python -m experiments.house_distill --checkpoint runs/house${n}p/checkpoint.pt --tables $all_tables \
      --decisions 300000 --epochs 12 --learning-rate 3e-4 --changed-weight 2 --run-name house${n}p_d1
  fi
  has house${n}p_s4 || fetch house${n}p_d1
  mix4=off=0.1,stacking=0.075,seven_o=0.3,jump_in=0.075,draw_until_playable=0.075,force_play=0.075,all=0.3
  run house${n}p_s4 "$stop" --num-players $n --seat-order $order --seed $((seed + 30)) \
    --init-from runs/house${n}p_d1/checkpoint.pt --learning-rate 2e-4 --ent-coef 0.005 --house-mix $mix4 "${common[@]}"
  # two players: updates 800-1000, played under each house rule but force play alone (there it lost: 0.99 of the
  # fair share against the old network's 1.16)
  under='["stacking", "seven_o", "jump_in", "draw_until_playable"]'
  [ "$n" = 2 ] && soup house2p_s4 800 1000 "$under" \
    uno_env/data/ppo_2p_house.npz
  exit 0
fi
mix3=off=0.05,stacking=0.05,seven_o=0.35,jump_in=0.05,draw_until_playable=0.05,force_play=0.05,all=0.4
if [ "$line" = c ]; then  # stage 3's checkpoint distilled again, anchored at every setting, then stage 5
  if ! has house${n}p_d2 && ! has house${n}p_s5; then
    fetch house${n}p_s3
    python -m experiments.house_distill --checkpoint runs/house${n}p_s3/checkpoint.pt --tables $all_tables \
      --decisions 300000 --epochs 12 --learning-rate 3e-4 --changed-weight 2 --run-name house${n}p_d2
  fi
  has house${n}p_s5 || fetch house${n}p_d2
  run house${n}p_s5 "$stop" --num-players $n --seat-order $order --seed $((seed + 40)) \
    --init-from runs/house${n}p_d2/checkpoint.pt --learning-rate 1e-4 --ent-coef 0.005 --house-mix $mix3 "${common[@]}"
  # four players: updates 1000-1200, played under Seven-O (alone or with other house rules): line a's general play
  # under the four others alone lost to the network trained without the house rules (docs/training.md)
  [ "$n" = 4 ] && soup house4p_s5 1000 1200 '["seven_o"]' \
    uno_env/data/ppo_4p_house.npz
  exit 0
fi
if [ "$line" = d ]; then  # line c's distilled network, PPO with four times the batch
  has house${n}p_s6 || { has house${n}p_d2 || { echo "line d: line c's distillation first" >&2; exit 2; }; fetch house${n}p_d2; }
  run house${n}p_s6 "$stop" --num-players $n --seat-order $order --seed $((seed + 50)) \
    --init-from runs/house${n}p_d2/checkpoint.pt --learning-rate 2e-4 --ent-coef 0.005 --house-mix $mix3 \
    "${common[@]}" --num-envs 1024 --batch-size 65536 --eval-every 10 --checkpoint-every 5
  exit 0
fi
[ "$line" = a ] || { echo "LINE: a, b, c or d, not $line" >&2; exit 2; }

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
run $s3 "$stop" --num-players $n --seat-order $order --seed $((seed + 20)) \
  --init-from runs/$distilled/checkpoint.pt --learning-rate 2e-4 --ent-coef 0.005 --house-mix $mix3 "${common[@]}"
exit 0
