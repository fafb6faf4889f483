"""Keep numba's on-disk cache honest across files, and clear only what an edit can change.

Numba validates a cached function against its own source file only, yet a compiled
function compiles in everything it calls and every global it reads: after an edit of a
kernel module or of ``layout.py``, a cached kernel of ``policies.py`` or of the vector env
would go on running the old rules. So, once per process, before any kernel loads, this
module checks the sources (see :func:`refresh`).

What compiled code can depend on is read from the sources with :mod:`ast`, by name:

* a *compiled statement* is a top-level statement that applies or calls a *producer*
  anywhere in it (a decorator, a call, a decorated ``def`` nested in a factory): one of
  numba's compiling entry points (``njit``, ``intrinsic``, ``CPUDispatcher``, ...
  :data:`ENTRY_POINTS`), or a function or class of the tree whose body calls one or that
  derives from one (``jit.kernel``, ``jit.accessor``, the factory
  ``vector.fused._advance_variant``), found through the imports and re-exports. Both are
  looked for in the modules that name numba or ``jit`` (:data:`MAY_COMPILE`);
* a statement needs the module-level names it reads (annotations aside): each resolves
  through the imports, relative ones and re-exports of package ``__init__``s included, to
  the statements that bind or mutate it (``K.step_game`` to ``step_game``'s ``def`` in
  ``kernels/step.py`` and the re-export in ``kernels/__init__.py``); a name bound to a
  module used whole (not through an attribute) needs all of that module;
* the *closure* of a module is the files of every statement its compiled statements need,
  transitively (a file counts whole: a comment in it counts too), plus the shipped network
  weights (``uno_env/data/*.npz``, compiled in as constants; in every closure, as which code
  reads which file is not read from the sources).

A file none of those statements need is never compiled into anything: ``checks.py``,
``position/``, ``game.py`` (``ismcts`` imports ``Game``, but only its Python class uses it),
the PettingZoo env. Its edits leave every cache alone, while an edit of ``layout.py``,
``cards.py`` or a kernel clears each module whose closure holds it.

Caches are cleared per module, not all at once: a module's cache files are deleted when the
digest of its own closure changed. That is as sound as clearing all: a compiled function
of module A that calls or inlines one of module B has B's file in A's closure, so A is
cleared with B; and it spares the engine's minute of compilation after an edit of a policy
or of the search. Where the names cannot be followed the rule stays on the safe side: a
module that uses ``globals()`` (or ``setattr``/``exec``/``eval``/``vars`` at module level)
counts whole, a name from a star import follows every star import, and a module with
cache files but no compiled statement (code the reading above missed) is cleared at any
change of any closure. What is not read: compiled code created from strings or from
outside the tree, and functions passed to kernels as arguments (the project dispatches
policies by number).

The check is cheap when nothing changed: one digest of every source file and weights file
against the stamp's (about 15 ms). The parse runs only after an edit of the package, once
(about a second on two busy cores), and not where the stamp cannot be written (a read-only
install: nothing could be deleted there either). Each place numba may keep the caches (next
to the sources, ``NUMBA_CACHE_DIR``) has its own stamp, recording each module's digest.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import pathlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

PACKAGES = ("uno_env",)
STAMP_NAME = "numba-sources.json"
ENTRY_POINTS = frozenset(
    {
        "CPUDispatcher",
        "Dispatcher",
        "cfunc",
        "generated_jit",
        "guvectorize",
        "intrinsic",
        "jit",
        "jitclass",
        "njit",
        "overload",
        "overload_attribute",
        "overload_classmethod",
        "overload_method",
        "register_jitable",
        "stencil",
        "vectorize",
    }
)
"""numba's names that make compiled code (as decorators or called)."""
MAY_COMPILE = re.compile(rb"\b(numba|jit)\b")
"""The modules that may make compiled code name numba or the engine's decorators
(``uno_env.engine.jit``): only theirs are read for compiled statements and producers. A
module with cache files but none of those counts as if it needed all."""
DYNAMIC = frozenset({"setattr", "exec", "eval", "vars"})
"""Called at module level, they may bind any name (``globals`` anywhere does too)."""

Chain = tuple[str, ...]
"""A dotted name read in a statement: ``("K", "step_game")`` for ``K.step_game``."""


@dataclass
class Statement:
    """What one top-level statement reads, calls and binds."""

    node: ast.stmt
    loads: set[Chain] = field(default_factory=set)
    calls: set[Chain] = field(default_factory=set)
    """Chains called or applied as decorators, anywhere in it."""
    makes: set[Chain] = field(default_factory=set)
    """Chains that make its binding a producer: a def's body, an assignment's value
    (uncalled, or called without positional arguments: ``njit(cache=True)``)."""
    binds: set[str] = field(default_factory=set)
    imports: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    """Bound name: (module, attribute or None for the module itself)."""
    inner_imports: list[tuple[str, str | None]] = field(default_factory=list)
    """Imports inside functions: they run when the function does."""


@dataclass
class Module:
    name: str
    path: pathlib.Path
    statements: list[Statement]
    bound: dict[str, list[int]]
    stars: list[str]
    opaque: bool


def _dotted(node: ast.expr) -> Chain | None:
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return inner + (node.attr,) if inner else None
    return None


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Scan(ast.NodeVisitor):
    """The reads, calls, stores and inner imports under a node, annotations aside."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.loads: set[Chain] = set()
        self.calls: set[Chain] = set()
        self.stores: set[str] = set()
        self.mutated: set[str] = set()
        self.declared: set[str] = set()
        self.imports: list[tuple[str, str | None]] = []

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loads.add((node.id,))
        else:
            self.stores.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _dotted(node)
        if chain is None:
            self.generic_visit(node)
            return
        self.loads.add(chain)
        if not isinstance(node.ctx, ast.Load):
            self.mutated.add(chain[0])

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load) and (root := _root(node.value)):
            self.mutated.add(root)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        chain = _dotted(node.func)
        if chain:
            self.calls.add(chain)
        # a call may change what its receiver or its arguments hold
        for target in (node.func.value if isinstance(node.func, ast.Attribute) else None, *node.args):
            if target is not None and (root := _root(target)):
                self.mutated.add(root)
        self.generic_visit(node)

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            if chain := _dotted(decorator):
                self.calls.add(chain)
            self.visit(decorator)
        if isinstance(node, ast.ClassDef):
            parts: list[ast.AST] = [*node.bases, *node.keywords]
        else:
            parts = [node.args]  # its return annotation aside
        for part in parts + node.body:
            self.visit(part)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _definition

    def visit_Constant(self, node: ast.Constant) -> None:
        pass  # (ast's own looks for the visitors of the old node types: a third of the time)

    def visit_arg(self, node: ast.arg) -> None:
        pass  # its annotation: numba reads none

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        for child in (node.target, node.value):
            if child is not None:
                self.visit(child)

    def visit_Global(self, node: ast.Global) -> None:
        self.declared.update(node.names)

    def visit_Import(self, node: ast.Import) -> None:
        self.imports += [(alias.name, None) for alias in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = _absolute(self.package, node)
        self.imports += [(source, None if alias.name == "*" else alias.name) for alias in node.names]


def _absolute(package: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base


def _scan(package: str, *nodes: ast.AST | None) -> _Scan:
    scan = _Scan(package)
    for node in nodes:
        if node is not None:
            scan.visit(node)
    return scan


def _statement(package: str, node: ast.stmt) -> Statement:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return _definition(package, node)
    whole = _scan(package, node)
    statement = Statement(node, loads=whole.loads, calls=whole.calls)
    if isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            target: tuple[str, str | None]
            if isinstance(node, ast.Import):
                bound = alias.asname or alias.name.split(".")[0]
                target = (alias.name if alias.asname else bound, None)
            else:
                bound, target = alias.asname or alias.name, (_absolute(package, node), alias.name)
            statement.binds.add(bound)
            statement.imports.setdefault(bound, []).append(target)
        return statement
    statement.inner_imports = whole.imports
    statement.binds = whole.stores | whole.mutated | whole.declared
    value = getattr(node, "value", None)
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and value is not None:
        called = {_dotted(c.func) for c in ast.walk(value) if isinstance(c, ast.Call) and c.args}
        statement.makes = _scan(package, value).loads - called
    return statement


def _definition(package: str, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Statement:
    """A ``def`` or ``class``: it makes compiled code when its body calls or applies a
    producer (or the class derives from one)."""
    head = _scan(package, *node.decorator_list)
    bases = node.bases if isinstance(node, ast.ClassDef) else []
    rest = _scan(package, *(node.keywords if isinstance(node, ast.ClassDef) else [node.args]), *bases, *node.body)
    decorators = {chain for chain in map(_dotted, node.decorator_list) if chain}
    return Statement(
        node,
        loads=head.loads | rest.loads,
        calls=head.calls | rest.calls | decorators,
        makes=rest.calls | {chain for chain in map(_dotted, bases) if chain},
        binds={node.name} | rest.declared,
        inner_imports=head.imports + rest.imports,
    )


def _parse(name: str, path: pathlib.Path) -> Module:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_bytes(), str(path))
    statements = [_statement(package, node) for node in tree.body]
    bound: dict[str, list[int]] = {}
    stars = []
    opaque = False
    for k, statement in enumerate(statements):
        for name_ in statement.binds:
            bound.setdefault(name_, []).append(k)
        for targets in statement.imports.values():
            stars += [source for source, attribute in targets if attribute == "*"]
        top = not isinstance(statement.node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        reads = {chain[0] for chain in statement.loads}
        opaque |= "globals" in reads or (top and bool(reads & DYNAMIC))
    return Module(name, path, statements, bound, stars, opaque)


Definition = tuple[str, str, int]
"""("module", name, -1), ("statement", module, index) or ("external", dotted name, -1)."""


class Sources:
    """The tree's modules, parsed when first needed, and what their compiled code needs."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.paths: dict[str, pathlib.Path] = {}
        for path in source_files(root):
            parts = path.relative_to(root).with_suffix("").parts
            self.paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
        self._modules: dict[str, Module] = {}
        self._resolved: dict[tuple[str, Chain], list[Definition]] = {}
        self._needs: dict[Definition, list[Definition]] = {}
        self._producers: dict[Definition, bool] = {}
        self.may_compile = {name for name, path in self.paths.items() if MAY_COMPILE.search(path.read_bytes())}

    def module(self, name: str) -> Module:
        if name not in self._modules:
            self._modules[name] = _parse(name, self.paths[name])
        return self._modules[name]

    def in_module(self, module: str, rest: Chain, seen: frozenset = frozenset()) -> Iterator[Definition]:
        """What ``module.rest...`` names: a submodule, a statement, or outside the tree."""
        if module not in self.paths:
            yield ("external", ".".join((module, *rest)), -1)
        elif not rest:
            yield ("module", module, -1)
        elif f"{module}.{rest[0]}" in self.paths and rest[0] not in self.module(module).bound:
            # a submodule, unless the package binds the name over it (``from .observe import observe``)
            yield from self.in_module(f"{module}.{rest[0]}", rest[1:], seen)
        else:
            yield from self.definitions(module, rest, seen)

    def definitions(self, module: str, chain: Chain, seen: frozenset = frozenset()) -> Iterator[Definition]:
        """The statements that bind what ``chain`` reads in ``module``, imports followed."""
        if (module, chain) in seen:
            return
        seen |= {(module, chain)}
        source = self.module(module)
        if source.opaque:
            yield ("module", module, -1)
            return
        first, rest = chain[0], chain[1:]
        places = source.bound.get(first, [])
        if not places:  # a builtin, or from a star import
            for star in source.stars:
                yield from self.in_module(star, chain, seen)
        for k in places:
            yield ("statement", module, k)
            for target, attribute in source.statements[k].imports.get(first, []):
                yield from self.in_module(target, rest if attribute is None else (attribute, *rest), seen)

    def resolve(self, module: str, chain: Chain) -> list[Definition]:
        if (module, chain) not in self._resolved:
            self._resolved[module, chain] = list(self.definitions(module, chain))
        return self._resolved[module, chain]

    def is_producer(self, definition: Definition) -> bool:
        kind, name, k = definition
        if kind == "external":
            parts = name.split(".")
            return parts[0] == "numba" and parts[-1] in ENTRY_POINTS
        if kind == "module" or name not in self.may_compile or definition in self._producers:
            return self._producers.get(definition, False)
        self._producers[definition] = False  # in progress: a cycle makes nothing
        statement = self.module(name).statements[k]
        found = any(self.is_producer(d) for chain in statement.makes for d in self.resolve(name, chain))
        self._producers[definition] = found
        return found

    def compiled(self, module: str) -> list[int]:
        """The module's compiled statements."""
        return [
            k
            for k, statement in enumerate(self.module(module).statements)
            if any(self.is_producer(d) for chain in statement.calls for d in self.resolve(module, chain))
        ]

    def needs(self, definition: Definition) -> list[Definition]:
        """What one statement (or a module, whole) reads, resolved."""
        if definition not in self._needs:
            kind, name, k = definition
            found: list[Definition] = []
            if kind == "module":
                found = [("statement", name, j) for j in range(len(self.module(name).statements))]
            elif kind == "statement":
                statement = self.module(name).statements[k]
                for chain in statement.loads:
                    found += self.resolve(name, chain)
                for target, attribute in statement.inner_imports:
                    found += self.in_module(target, () if attribute in (None, "*") else (attribute,))
            self._needs[definition] = found
        return self._needs[definition]

    def closure(self, module: str) -> set[pathlib.Path]:
        """The files the compiled statements of ``module`` need (its own among them)."""
        todo: list[Definition] = [("statement", module, k) for k in self.compiled(module)]
        done: set[Definition] = set()
        while todo:
            definition = todo.pop()
            if definition not in done:
                done.add(definition)
                todo += self.needs(definition)
        return {self.paths[name] for kind, name, _ in done if kind != "external"}


def source_files(root: pathlib.Path) -> list[pathlib.Path]:
    """Every Python file of the project's packages."""
    files = []
    for package in PACKAGES:
        folder = root / package
        if folder.is_dir():
            files += sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)
    return files


def weights_files(root: pathlib.Path) -> list[pathlib.Path]:
    """The shipped networks, compiled into kernels as constants."""
    return sorted((root / "uno_env" / "data").glob("*.npz"))


def _digest(root: pathlib.Path, files: list[pathlib.Path], known: dict[pathlib.Path, bytes] | None = None) -> str:
    """One digest of the files' names and contents (``known``: their own digests, reused)."""
    digest = hashlib.sha256()
    for path in files:
        if known is None:
            own = hashlib.sha256(path.read_bytes()).digest()
        else:
            own = known.get(path) or known.setdefault(path, hashlib.sha256(path.read_bytes()).digest())
        digest.update(str(path.relative_to(root)).encode() + b"\0" + own)
    return digest.hexdigest()


def _writable(path: pathlib.Path) -> bool:
    while not path.exists() and path != path.parent:
        path = path.parent
    return os.access(path, os.W_OK)


def closures(root: pathlib.Path) -> dict[pathlib.Path, list[pathlib.Path]]:
    """Each source file whose cache files numba may keep: the files its compiled code
    depends on (sorted; the weights last). A file without compiled statements gets the
    union of all closures, on the safe side."""
    sources = Sources(root)
    weights = weights_files(root)
    found = {}
    for name, path in sources.paths.items():
        if name in sources.may_compile and sources.compiled(name):
            found[path] = sorted(sources.closure(name))
    union = sorted(set().union(*found.values()))
    return {path: found.get(path, union) + weights for path in sources.paths.values()}


def project_sources(root: pathlib.Path) -> list[pathlib.Path]:
    """Every file that compiled code depends on: the union of the closures."""
    return sorted({path for files in closures(root).values() for path in files})


def cache_locations(root: pathlib.Path, source: pathlib.Path) -> list[tuple[pathlib.Path, pathlib.Path]]:
    """(stamp file, cache folder) pairs where numba may keep the cache of a source file:
    next to it, and under ``NUMBA_CACHE_DIR`` when set (numba's naming: the parent
    folder's name and the SHA-1 of its path). Each place has its own stamp, and each tree
    its own in a shared ``NUMBA_CACHE_DIR``."""
    places = [(root / "uno_env" / "__pycache__" / STAMP_NAME, source.parent / "__pycache__")]
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir:
        parent = os.path.dirname(os.path.abspath(source))
        hashed = hashlib.sha1(parent.encode()).hexdigest()
        folder = pathlib.Path(cache_dir) / f"{os.path.basename(parent)}_{hashed}"
        tree = hashlib.sha1(os.path.abspath(root).encode()).hexdigest()[:16]
        places.append((pathlib.Path(cache_dir) / f"uno_env-{tree}-{STAMP_NAME}", folder))
    return places


def _read_stamp(stamp_file: pathlib.Path) -> dict:
    try:
        stamp = json.loads(stamp_file.read_text())
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


READ: dict[pathlib.Path, str] = {}
"""Per tree, the digest of its sources when this process checked them, before it loaded its
kernels: the code it compiles is that code, whatever the files say later."""


def refresh(root: pathlib.Path | None = None) -> bool:
    """Delete the cache files of each module whose closure changed since the last check;
    returns whether any module's did (the first check: all). Silent where the tree is
    read-only."""
    root = root or pathlib.Path(__file__).resolve().parents[2]
    known: dict[pathlib.Path, bytes] = {}
    everything = _digest(root, source_files(root) + weights_files(root), known)
    READ[root] = everything
    places = cache_locations(root, root / "uno_env" / "__init__.py")
    stale = [
        k
        for k, (stamp_file, _) in enumerate(places)
        if _read_stamp(stamp_file).get("sources") != everything and _writable(stamp_file.parent)
    ]
    if not stale:
        return False
    current = {str(path.relative_to(root)): _digest(root, files, known) for path, files in closures(root).items()}
    cleared = False
    for k in stale:
        stamp_file = places[k][0]
        recorded = _read_stamp(stamp_file).get("closures", {})
        try:
            for name, digest in current.items():
                if recorded.get(name) == digest:
                    continue
                cleared = True
                path = root / name
                for cached in cache_locations(root, path)[k][1].glob(f"{path.stem}.*.nb[ic]"):
                    cached.unlink(missing_ok=True)
            stamp_file.parent.mkdir(parents=True, exist_ok=True)
            stamp_file.write_text(json.dumps({"sources": everything, "closures": current}, indent=0, sort_keys=True))
        except OSError:
            continue
    return cleared


def disown_if_edited(root: pathlib.Path | None = None) -> bool:
    """After this process compiled into the cache: if the sources changed since it read them
    (an edit while a background compile ran), the cache files it wrote hold the old code,
    and a process started after the edit may already have stamped the new sources, so that
    no check would clear them. Every stamp of the tree is then removed: the next process
    clears every cache (the safe side). Returns whether it did."""
    root = root or pathlib.Path(__file__).resolve().parents[2]
    read = READ.get(root)
    if read is None or _digest(root, source_files(root) + weights_files(root)) == read:
        return False
    for stamp_file, _ in cache_locations(root, root / "uno_env" / "__init__.py"):
        stamp_file.unlink(missing_ok=True)
    return True
