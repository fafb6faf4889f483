"""Training: one readable script per method (CleanRL style: :mod:`.ppo` is ``uno train``,
:mod:`.sb3`, :mod:`.rllib`, :mod:`.distill_colours`, :mod:`.soup`), and what they share."""
