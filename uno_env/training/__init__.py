"""Training: one readable script per method (CleanRL style: :mod:`.ppo` is ``uno train``,
:mod:`.sb3`, :mod:`.rllib`), and the library they
share: the networks (:mod:`.network`), the opponent pool (:mod:`.opponents`), the rollout
(:mod:`.rollout`), the warm start (:mod:`.imitation`), the evaluation (:mod:`.evaluate`),
``progress.csv`` (:mod:`.progress`), the learning curve (:mod:`.plot`) and the rules of a
run (:mod:`.rules`). The experiment scripts built on it (averaging networks into a soup,
distilling the colour averaging) live in ``experiments/``, outside the package."""

import os

# torch's OpenMP threads spin while they wait; on a machine shared with other processes
# (the env's threads, evaluation workers, other jobs) spinning took the cores from the
# threads with work and slowed training 5-10x (50x for sb3 with 2 torch threads). This must
# be set before torch loads: here, before any training module imports it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
