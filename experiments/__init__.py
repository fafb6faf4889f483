"""The experiments: every shipped network's rebuild and every measured figure of the docs, each
with its record (experiments/README.md lists them). Not part of the installed package: no module
of ``uno_env`` imports them, and the wheel does not ship them. Run them from a clone
(``python -m experiments.NAME``, ``bash experiments/networks/NAME.sh``)."""
