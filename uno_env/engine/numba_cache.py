"""Keep numba's on-disk cache honest across files.

Numba validates a cached function against its own source file only (its
modification time), yet a kernel compiles in everything it calls: after an edit of
``kernels.py`` or ``layout.py``, a cached kernel of ``policies.py`` or of the vector
env would go on running the old rules. So, once per process, the sources of this
project's compiled packages are hashed; when the hash differs from the one
recorded at the last check, the files that cache compiled code get a new
modification time, and numba recompiles them on first use.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import time

PACKAGES = ("uno_env", "agents")
STAMP_NAME = "numba-sources.sha256"
USES_NUMBA = re.compile(rb"^\s*(from numba|import numba)\b", re.MULTILINE)


def project_sources(root: pathlib.Path) -> list[pathlib.Path]:
    """The sources compiled code can depend on: the engine (kernels and the constants
    they compile in) and every module that uses numba. Other edits (the PettingZoo
    env, docs, the tournament runner) leave the caches alone."""
    files = []
    for package in PACKAGES:
        folder = root / package
        if folder.is_dir():
            for path in sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts):
                if path.parent.name == "engine" or USES_NUMBA.search(path.read_bytes()):
                    files.append(path)
    return files


def refresh(root: pathlib.Path | None = None) -> bool:
    """Touch the files with cached kernels if any project source changed since the last
    check; returns whether it did. Silent where the tree is read-only."""
    root = root or pathlib.Path(__file__).resolve().parents[2]
    files = project_sources(root)
    digest = hashlib.sha256()
    contents = {}
    for path in files:
        data = path.read_bytes()
        contents[path] = data
        digest.update(str(path.relative_to(root)).encode() + b"\0" + data + b"\0")
    stamp = digest.hexdigest()
    stamp_file = root / "uno_env" / "__pycache__" / STAMP_NAME
    try:
        if stamp_file.read_text() == stamp:
            return False
    except OSError:
        pass
    now = time.time()
    try:
        for path, data in contents.items():
            if b"cache=True" in data:
                os.utime(path, (now, now))
        stamp_file.parent.mkdir(exist_ok=True)
        stamp_file.write_text(stamp)
    except OSError:
        return False
    return True
