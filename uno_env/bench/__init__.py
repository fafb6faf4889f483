"""Benchmarks: :mod:`.speed` (``uno bench``: the envs and policies against RLCard) and
:mod:`.scale` (the vector env and tournaments over numba threads)."""
