"""Keep numba's on-disk cache honest across files.

Numba validates a cached function against its own source file only, yet a
kernel compiles in everything it calls and every module constant it reads: after
an edit of a kernel module or of ``layout.py``, a cached kernel of ``policies.py`` or of
the vector env would go on running the old rules. So, once per process, before
any kernel loads, the sources that compiled code can depend on are hashed; when
the hash differs from the one recorded at the last check, the cache files of
every module that uses numba are deleted, and numba recompiles on first use.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re

PACKAGES = ("uno_env",)
STAMP_NAME = "numba-sources.sha256"
# numba itself, or the engine's decorators (uno_env.engine.jit) without a numba import
USES_NUMBA = re.compile(rb"^\s*(from numba|import numba|from [\w.]*\bjit import)\b", re.MULTILINE)


def project_sources(root: pathlib.Path) -> list[pathlib.Path]:
    """The sources compiled code can depend on: the engine (every module under
    ``uno_env/engine``: the kernels, the accessors they inline and the constants they
    compile in), every module that uses numba and the shipped network weights.
    Other edits (the PettingZoo env, docs, the tournament runner) leave the caches alone."""
    files = []
    for package in PACKAGES:
        folder = root / package
        if folder.is_dir():
            for path in sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts):
                if path.relative_to(folder).parts[0] == "engine" or USES_NUMBA.search(path.read_bytes()):
                    files.append(path)
    # weights compiled into kernels as constants (the shipped policy network)
    files += sorted((root / "uno_env" / "data").glob("*.npz"))
    return files


def cache_locations(root: pathlib.Path, source: pathlib.Path) -> list[tuple[pathlib.Path, pathlib.Path]]:
    """(stamp file, cache folder) pairs where numba may keep the cache of a source file:
    next to it, and under ``NUMBA_CACHE_DIR`` when set (numba's naming: the parent
    folder's name and the SHA-1 of its path). Each place has its own stamp."""
    places = [(root / "uno_env" / "__pycache__" / STAMP_NAME, source.parent / "__pycache__")]
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir:
        parent = os.path.dirname(os.path.abspath(source))
        hashed = hashlib.sha1(parent.encode()).hexdigest()
        folder = pathlib.Path(cache_dir) / f"{os.path.basename(parent)}_{hashed}"
        places.append((pathlib.Path(cache_dir) / f"uno_env-{STAMP_NAME}", folder))
    return places


def refresh(root: pathlib.Path | None = None) -> bool:
    """Delete the cached kernels if a source they depend on changed since the last
    check; returns whether it did. Silent where the tree is read-only."""
    root = root or pathlib.Path(__file__).resolve().parents[2]
    files = project_sources(root)
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    stamp = digest.hexdigest()
    cleared = False
    for k, stamp_file in enumerate(dict.fromkeys(s for path in files for s, _ in cache_locations(root, path))):
        try:
            if stamp_file.read_text() == stamp:
                continue
        except OSError:
            pass
        try:
            for path in files:
                folder = cache_locations(root, path)[k][1]
                for cached in folder.glob(f"{path.stem}.*.nb[ic]"):
                    cached.unlink(missing_ok=True)
            stamp_file.parent.mkdir(parents=True, exist_ok=True)
            stamp_file.write_text(stamp)
            cleared = True
        except OSError:
            continue
    return cleared
