"""One-off experiment scripts, kept for their results (``docs/training.md`` gives each one's
commands and figures). Not part of the installed package: no module of ``uno_env`` imports
them, and the wheel does not ship them. Run them from a clone (``python -m experiments.NAME``)."""
