"""Packaging: the import package is `crawlmill` (its `__init__.py` in src_crawlmill/), with
`crawlmill.core`, `.formats` and `.plugins` mapped from the root folders; nothing installs a
top-level `core`, `formats` or `plugins` module; every source package is listed in the build; a
built wheel holds exactly the sources and works on its own."""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import crawlmill
import pytest

from tests.shared_build import built, shared_root

ROOT = Path(__file__).resolve().parent.parent


def _installed() -> md.Distribution:
    """The installed crawlmill distribution (not an egg-info a build left in the checkout)."""
    for dist in md.distributions(name="crawlmill"):
        if dist.read_text("RECORD") is not None:  # pip's dist-info; a build's egg-info has none
            return dist
    raise AssertionError("crawlmill is not pip-installed")


def _editable(dist: md.Distribution) -> bool:
    direct = dist.read_text("direct_url.json")
    return bool(direct and json.loads(direct).get("dir_info", {}).get("editable"))


def test_installed_files_live_under_crawlmill() -> None:
    dist = _installed()
    files = dist.files or []
    top = {f.parts[0] for f in files if f.suffix == ".py"}
    assert not top & {"core", "formats", "algorithms", "plugins", "src_crawlmill"}, top
    if _editable(dist):  # an editable install installs a finder that maps to the checkout
        assert all("__editable__" in p for p in top), top
        assert Path(crawlmill.__file__) == ROOT / "src_crawlmill" / "__init__.py"
    else:  # a regular one puts every module under crawlmill/, the package's own __init__ too
        assert top == {"crawlmill"}, top
        assert "crawlmill/__init__.py" in {f.as_posix() for f in files}
        assert Path(crawlmill.__file__) == Path(dist.locate_file("crawlmill/__init__.py"))
    assert Path(crawlmill.core.__file__).parent.name == "core"


def test_every_source_package_is_in_the_build() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found == listed


def test_builtin_plugins_are_entry_points_that_load() -> None:
    eps = {
        ep.name: ep
        for ep in md.entry_points(group="crawlmill")
        if ep.value.startswith("crawlmill.")
    }
    assert {"warc-reader", "warc-writer", "arc-reader", "arc-writer", "basic-filters"} <= set(eps)
    for ep in eps.values():
        ep.load()


def _sources() -> dict[str, Path]:
    """Every module the build must ship, by its path in a wheel (``crawlmill/core/x.py``)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"
    ]
    found = {}
    for name, folder in mapping.items():
        for source in (ROOT / folder).rglob("*.py"):
            rel = source.relative_to(ROOT / folder)
            found["/".join([*name.split("."), *rel.parts])] = source
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built with pip from a copy of the checkout (no build files land in it), once per
    session: the first xdist worker builds it, the others share it (tests/shared_build.py)."""

    def build(dist: Path) -> None:
        src = tmp_path_factory.mktemp("wheel") / "src"
        shutil.copytree(
            ROOT,
            src,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "tests", "benchmarks"
            ),
        )
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--disable-pip-version-check",
                "-q",
                "-w",
                str(dist),
                str(src),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr

    (built_wheel,) = built(shared_root(tmp_path_factory), "wheel", build).glob("crawlmill-*.whl")
    return built_wheel


@pytest.mark.slow
def test_the_wheel_holds_the_package_and_nothing_at_the_top(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"crawlmill", f"crawlmill-{md.version('crawlmill')}.dist-info"}, top
    modules = {n for n in names if n.endswith(".py")}
    assert "crawlmill/__init__.py" in modules
    assert modules == set(_sources()), modules ^ set(_sources())


@pytest.mark.slow
def test_the_wheel_works_on_its_own(wheel: Path, tmp_path: Path) -> None:
    """Installed into a folder that comes first on the path, the wheel's ``crawlmill`` (not the
    checkout's) is imported, reads a file and runs the command."""
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    code = (
        "import json, sys, crawlmill; "
        "records = list(crawlmill.open_reader(sys.argv[1])); "
        "import crawlmill.core, crawlmill.plugins.readers.arc as arc; "
        "print(json.dumps([crawlmill.__file__, crawlmill.core.__file__, arc.__file__, "
        "len(records), crawlmill.__version__]))"
    )
    env = dict(os.environ, PYTHONPATH=str(target))
    fixture = ROOT / "fixtures" / "legacy" / "example-2008.arc.gz"
    result = subprocess.run(
        [sys.executable, "-c", code, str(fixture)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    *files, count, version = json.loads(result.stdout)
    assert all(Path(f).is_relative_to(target / "crawlmill") for f in files), files
    assert count == 6 and version == md.version("crawlmill")
    cli = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", "inspect", str(fixture)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert cli.returncode == 0 and "example.org" in cli.stdout, cli.stderr
