"""``progress.csv``, the table of a training run: one row per update (or iteration) with fixed
columns; a value a row lacks is left empty. A resumed run keeps the rows up to its checkpoint."""

from __future__ import annotations

import csv
import pathlib


class ProgressCsv:
    """Writes the header (and, with ``keep_until``, the rows of an earlier file up to that
    update), then one row per :meth:`write`."""

    def __init__(self, path: pathlib.Path, columns: list[str], keep_until: int | None = None):
        self.path = path
        self.columns = columns
        kept = []
        if keep_until is not None and path.exists():  # keep the rows up to the checkpoint
            with open(path) as f:
                kept = [r for r in csv.DictReader(f) if int(r["update"]) <= keep_until]
        with open(path, "w", newline="") as f:
            out = csv.DictWriter(f, columns, extrasaction="ignore")
            out.writeheader()
            out.writerows(kept)

    def write(self, row: dict) -> None:
        with open(self.path, "a", newline="") as f:
            csv.writer(f).writerow([row.get(c, "") for c in self.columns])
