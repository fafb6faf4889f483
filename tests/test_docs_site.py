"""The documentation site (docs/conf.py, ``make docs``): it builds with no warning, every page
of the guide is reachable from the index, the reference names every public name of
``uno_env`` and of the envs, the guide's pages hold no dated line but the tables' "measured"
lines, and in a real browser the index opens, the search finds the house rules and the
reference shows ``UnoVectorEnv.step``."""

from __future__ import annotations

import functools
import http.server
import re
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from tests.browser import browser, screenshot, wait_for

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TOCTREE = re.compile(r"```\{toctree\}\n(.*?)```", re.S)


def toctree_entries(page: Path, caption: str | None = None) -> list[str]:
    """The pages a Markdown page's toctrees list (only the one with ``caption`` if given)."""
    entries = []
    for body in TOCTREE.findall(page.read_text()):
        if caption is not None and f":caption: {caption}\n" not in body:
            continue
        entries += [line.strip() for line in body.splitlines() if line.strip() and not line.startswith(":")]
    return entries


def guide_pages() -> list[Path]:
    """The guide's pages: the index's Guide toctree and the pages each of them lists."""
    pages = [DOCS / f"{name}.md" for name in toctree_entries(DOCS / "index.md", "Guide")]
    return pages + [page.parent / f"{name}.md" for page in list(pages) for name in toctree_entries(page)]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built from this checkout, as ``make docs`` builds it (-W: a warning fails)."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed (Sphinx 9 needs Python 3.11)")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed")
    pytest.importorskip("furo", reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"]
    command += ["-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0 and done.stderr.strip() == "", f"the site does not build cleanly:\n{done.stderr}"
    print(f"the site built in {time.monotonic() - started:.1f} s")
    return out / "html"


def test_a_broken_link_or_reference_fails_the_build():
    """What -W -n turns into a failed build: a link to a page or a repository file that does
    not exist, and a reference to a Python object that exists nowhere (a small site, beside
    the real one, with the real one's extension)."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed (Sphinx 9 needs Python 3.11)")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed")
    source = DOCS / "_build" / "broken_site"  # inside the repository, as the site's pages are
    source.mkdir(parents=True, exist_ok=True)
    (source / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(ROOT)!r}, {str(DOCS / '_ext')!r}]\n"
        "extensions = ['myst_parser', 'unodocs']\nsource_suffix = {'.md': 'markdown'}\n"
    )
    (source / "index.md").write_text(
        "# A page\n\n[a page](no_such_page.md), [a file](../../../uno_env/no_such_module.py),\n"
        "{py:func}`uno_env.no_such_function`, [a file that exists](../../../uno_env/env.py)\n"
    )
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-E", "-b", "html"]
    done = subprocess.run(
        [*command, str(source), str(source / "html")], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode != 0
    for broken in ("no_such_page.md", "no_such_module.py", "uno_env.no_such_function"):
        assert broken in done.stderr, done.stderr
    assert "uno_env/env.py" not in done.stderr


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def reachable(html: Path) -> set[Path]:
    """The pages of the built site reached from its index by following links."""
    seen, todo = set(), [html / "index.html"]
    while todo:
        page = todo.pop()
        if page in seen or not page.is_file():
            continue
        seen.add(page)
        parser = Links()
        parser.feed(page.read_text())
        for href in parser.hrefs:
            target = urlparse(urljoin(page.as_uri(), href))
            if target.scheme == "file" and target.path.endswith(".html"):
                todo.append(Path(target.path))
    return seen


def test_every_guide_page_is_reachable_from_the_index(site):
    pages = guide_pages()
    assert len(pages) >= 12 and all(page.exists() for page in pages), pages
    reached = reachable(site)
    for page in pages:
        assert site / page.relative_to(DOCS).with_suffix(".html") in reached, (
            f"{page.name} is not reached from the index"
        )
    # every Markdown page of docs/ is on the site (an orphan page would have warned, failing the build)
    for page in DOCS.rglob("*.md"):
        if "_build" not in page.parts and "data" not in page.relative_to(DOCS).parts[:1]:
            assert site / page.relative_to(DOCS).with_suffix(".html") in reached, page


def documented(site: Path) -> set[str]:
    """The Python objects the reference documents, from the site's inventory (objects.inv)."""
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    return {name for kind, entries in inventory.items() if kind.startswith("py:") for name in entries}


def env_members() -> dict[str, list[str]]:
    """Each env class's public names that uno_env defines (its own and its uno_env bases')."""
    import uno_env
    from uno_env import vector

    classes = {
        "uno_env.raw_env": uno_env.raw_env,
        "uno_env.UnoGymEnv": uno_env.UnoGymEnv,
        "uno_env.vector.UnoVectorEnv": vector.UnoVectorEnv,
        "uno_env.vector.UnoGymVectorEnv": vector.UnoGymVectorEnv,
        "uno_env.vector.UnoSB3VecEnv": vector.UnoSB3VecEnv,
    }
    return {
        path: sorted(
            {
                name
                for base in cls.__mro__
                if base.__module__.startswith("uno_env")
                for name in vars(base)
                if not name.startswith("_")
            }
        )
        for path, cls in classes.items()
    }


def test_the_reference_names_every_public_name_of_uno_env_and_of_the_envs(site):
    import uno_env

    names = documented(site)
    last = {name.rsplit(".", 1)[-1] for name in names}
    missing = [name for name in uno_env.__all__ if name not in last]
    assert missing == [], f"uno_env.__all__ names missing from the reference: {missing}"
    for path, members in env_members().items():
        assert path in names, path
        missing = [member for member in members if f"{path}.{member}" not in names]
        assert missing == [], f"{path}: members missing from the reference: {missing}"
    assert "uno_env.vector.UnoVectorEnv.step" in names


def test_the_cli_page_shows_every_command_with_its_options(site):
    from uno_env.cli.main import COMMANDS

    text = (site / "reference" / "cli.html").read_text()
    for command in COMMANDS:
        assert f"usage: uno {command}" in text, command
    assert "--schedule" in text and "--total-timesteps" in text


DATED = re.compile(r"2026-1")
MEASURED = ("(measured at commit ", "(transcribed from the recorded run")
"""How the generated tables' "measured" lines start (experiments/tables.py, source_note)."""


def test_the_guide_holds_no_dated_line_but_the_measured_lines_of_generated_tables():
    for page in guide_pages():
        dated = [line for line in page.read_text().splitlines() if DATED.search(line)]
        stray = [line for line in dated if not line.startswith(MEASURED)]
        assert stray == [], f"docs/{page.name}: dated lines belong in the research record: {stray[:3]}"


@pytest.fixture(scope="module")
def served(site):
    """The built site on a loopback port (the search reads its index with fetch, as on a host)."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def test_the_site_in_a_browser(served):
    driver = browser()
    try:
        driver.get(f"{served}/index.html")
        wait_for(driver, "return document.readyState === 'complete'", "the index")
        assert driver.title.startswith("uno-env")
        sidebar = driver.execute_script("return document.querySelector('.sidebar-tree').innerText")
        assert "The first ten minutes" in sidebar and "Reference" in sidebar
        screenshot(driver, "docs_index")

        driver.get(f"{served}/search.html?q=Seven-O")
        titles = wait_for(
            driver,
            "const r = document.querySelectorAll('#search-results li a');"
            "return r.length ? Array.from(r, a => a.innerText + ' ' + a.getAttribute('href')) : null;",
            "the search's results for Seven-O",
        )
        assert any("HOUSE_RULES.html" in title for title in titles), titles
        screenshot(driver, "docs_search_seven_o")

        driver.get(f"{served}/reference/vector.html#uno_env.vector.UnoVectorEnv.step")
        signature = wait_for(
            driver,
            "const d = document.getElementById('uno_env.vector.UnoVectorEnv.step');"
            "if (!d || d.getBoundingClientRect().height === 0) return null;"
            "d.scrollIntoView(); return d.innerText;",
            "UnoVectorEnv.step",
        )
        assert signature.startswith("step(") and "actions" in signature, signature
        driver.execute_script(
            "const d = document.getElementById('uno_env.vector.UnoVectorEnv.step');"
            "window.scrollTo({top: d.getBoundingClientRect().top + window.scrollY - 40, behavior: 'instant'});"
        )
        time.sleep(0.3)  # the theme settles its scroll position after a jump
        screenshot(driver, "docs_reference_vector_step")
    finally:
        driver.quit()
