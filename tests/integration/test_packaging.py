"""The package works installed, not only from the repository root, and from the root too.

A plain (non-editable) install is what a user or a deployment gets, and it differs from the
editable one the suite otherwise runs against in exactly the ways that break silently: the
top-level ``resources/``, ``sensors/`` and ``sql/`` folders must reach the package (through the
links ``fashion_assets/resources`` and so on), the SQL migrations must be shipped as package
data, and nothing may resolve relative to the repository or the working directory. So the
repository is built into a wheel, the wheel is installed into a separate folder, and the
installed copy runs from an unrelated empty folder, and again from the root of a copy of the
source tree, where anything started with ``python -m`` (Dagster's run and code-server
processes among them) imports the checkout's ``fashion_assets/`` rather than the installed one.

A fresh virtual environment with every dependency would take minutes; installing the wheel
alone (``--target``, ``--no-deps``) and putting that folder first on ``PYTHONPATH`` tests the
same thing (the installed files, found the installed way) on top of this environment's
dependencies, and the first test proves the repository's copy is not the one imported.
``.ci/run`` runs the README's own commands in a fresh clone as well.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from fashion_assets.launch.deployment import STARTUP_DEADLINE_S
from fashion_assets.replica import ROBOTS_BLOCKED_BRAND, build_site
from tests.integration.test_demo import lines_by_partition

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))

# Generated or machine-local folders that are not part of the source tree (see .gitignore).
NOT_SOURCE = (".git", ".ci", "build", "dist", "*.egg-info", "__pycache__", ".fashion",
              ".venv", ".pytest_cache", ".ruff_cache", ".tmp_dagster_home_*", ".env")
# Folders of the repository that hold packages which are deliberately not distributed.
NOT_DISTRIBUTED = {"tests", "bench"}  # test and benchmark code stay in the repository
DEMO_ARGS = ("--brands", "1", "--shows", "2", "--photos", "3")
# The demo starts `dagster dev` for its runs, which has STARTUP_DEADLINE_S to answer on a
# loaded machine; then it crawls.
SUBPROCESS_TIMEOUT_S = STARTUP_DEADLINE_S + 180


@dataclass(frozen=True)
class Installed:
    """The wheel built from the repository and the folder it was installed into."""

    wheel: Path
    site: Path
    source: Path


def _clean_env(site: Path) -> dict[str, str]:
    """This environment without the project's settings, importing the installed copy first.

    ``FASHION_*`` and ``DAGSTER_HOME`` are dropped so the defaults of a bare machine are what
    is tested; telemetry is off because these machines have no internet to send it to.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FASHION_") and k != "DAGSTER_HOME"}
    env["PYTHONPATH"] = str(site)
    env["DAGSTER_DISABLE_TELEMETRY"] = "1"
    return env


def _run(args: list[str], *, cwd: Path, env: Mapping[str, str]
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=dict(env), capture_output=True, text=True,
                          timeout=SUBPROCESS_TIMEOUT_S, check=False)


def _output(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def _build_backend_installed() -> bool:
    """Whether this environment satisfies ``[build-system] requires`` by itself.

    Then the wheel is built without build isolation, offline. Otherwise pip builds it in an
    isolated environment and installs the backend from its configured index, as any user's
    ``pip install .`` does.
    """
    for spec in PYPROJECT["build-system"]["requires"]:
        requirement = Requirement(spec)
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            return False
        if not requirement.specifier.contains(version, prereleases=True):
            return False
    return True


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """Build a wheel of the repository and install it, non-editable, into its own folder.

    The build runs on a copy of the source tree: setuptools writes ``build/`` and
    ``*.egg-info`` into the tree it builds, and a stale ``build/lib`` left in the repository
    would leak deleted modules into the wheel and hide a packaging mistake.
    """
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    # Links stay links, as git checks them out.
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    wheels = root / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
             "-w", str(wheels), str(source)]
    if _build_backend_installed():
        build.insert(4, "--no-build-isolation")
    result = _run(build, cwd=root, env=os.environ)
    assert result.returncode == 0, "building the wheel failed\n" + _output(result)
    [wheel] = wheels.glob("fashion_assets-*.whl")
    site = root / "site"
    result = _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile",
                   "--disable-pip-version-check", "--target", str(site), str(wheel)],
                  cwd=root, env=os.environ)
    assert result.returncode == 0, "installing the wheel failed\n" + _output(result)
    yield Installed(wheel=wheel, site=site.resolve(), source=source)


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """An empty folder with nothing of the repository in it, to run the installed copy from."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder.resolve()


def _source_packages() -> dict[str, Path]:
    """Every package of the source tree (a folder with ``__init__.py``), by its import name.

    The card's top-level ``resources/``, ``sensors/`` and ``sql/`` are named as what they are
    imported as, through the package's links to them; any other package by its path, so one
    outside ``fashion_assets`` cannot match a listed package by accident.
    """
    linked = {p.resolve() for p in (REPO / "fashion_assets").iterdir() if p.is_symlink()}
    found = {}
    for current, subfolders, files in os.walk(REPO, followlinks=True):
        folder = Path(current)
        subfolders[:] = [d for d in subfolders
                         if not any(fnmatch.fnmatch(d, pattern) for pattern in NOT_SOURCE)
                         and not (folder == REPO and d in NOT_DISTRIBUTED)
                         and not (folder == REPO and (folder / d).resolve() in linked)]
        if "__init__.py" in files:
            found[".".join(folder.relative_to(REPO).parts)] = folder
    return found


def test_the_card_folders_are_the_package_subpackages() -> None:
    """Each top-level folder of the card is reached from ``fashion_assets/`` by a relative
    link, so the checkout's package is whole wherever it is imported from."""
    for name in ("resources", "sensors", "sql"):
        link = REPO / "fashion_assets" / name
        assert link.is_symlink(), f"fashion_assets/{name} is not a link to ../{name}"
        assert os.readlink(link) == f"../{name}"
        assert (link / "__init__.py").is_file()


def test_every_source_package_is_listed_in_pyproject() -> None:
    """A new subpackage left out of ``packages`` would be missing from the wheel, silently."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = _source_packages()
    assert "fashion_assets.replica" in found and "fashion_assets.sql" in found
    missing = sorted(set(found) - listed)
    assert not missing, (f"packages of the source tree not listed in pyproject's "
                         f"[tool.setuptools] packages: {missing}")
    gone = sorted(listed - set(found))
    assert not gone, f"pyproject lists packages with no folder: {gone}"


def test_wheel_ships_every_module_and_migration_inside_the_package(
        installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for required in ("fashion_assets/sql/0001_catalog.sql", "fashion_assets/sql/__init__.py",
                     "fashion_assets/resources/__init__.py", "fashion_assets/sensors/__init__.py",
                     "fashion_assets/sensors/brand_partitions.py",
                     "fashion_assets/replica/__init__.py", "fashion_assets/replica/server.py",
                     "fashion_assets/replica/site.py", "fashion_assets/replica/vogue_show.py",
                     "fashion_assets/replica/images.py", "fashion_assets/__main__.py",
                     # The browsing pages' templates and stylesheet (catalog_api/pages.py).
                     "fashion_assets/catalog_api/templates/designers.html",
                     "fashion_assets/catalog_api/static/browse.css"):
        assert required in names, f"{required} missing from {installed.wheel.name}"
    # Every module and migration of every package, so nothing added later is left behind.
    for package, folder in _source_packages().items():
        prefix = package.replace(".", "/")
        for file in folder.iterdir():
            if file.suffix in (".py", ".sql"):
                assert f"{prefix}/{file.name}" in names, (
                    f"{file.relative_to(REPO)} is not in the wheel as {prefix}/{file.name}")
    top_level = {name.split("/", 1)[0] for name in names}
    dist_info = {t for t in top_level if t.endswith(".dist-info")}
    assert top_level - dist_info == {"fashion_assets"}, (
        f"the wheel installs top-level names besides fashion_assets: {sorted(top_level)}")
    for stray in ("resources/", "sensors/", "sql/", "tests/", "bench/"):
        assert not any(name.startswith(stray) for name in names), stray


PROBE = """
import json
from importlib import resources

import fashion_assets
import fashion_assets.replica
import fashion_assets.resources
import fashion_assets.sensors
from fashion_assets.catalog.migrations import MIGRATIONS_PACKAGE, packaged_migrations

print(json.dumps({
    "fashion_assets": fashion_assets.__file__,
    "resources": fashion_assets.resources.__file__,
    "sensors": fashion_assets.sensors.__file__,
    "replica": fashion_assets.replica.__file__,
    "migrations_folder": str(resources.files(MIGRATIONS_PACKAGE)),
    "migrations": [m.name for m in packaged_migrations()],
    "migration_files": sorted(e.name for e in resources.files(MIGRATIONS_PACKAGE).iterdir()
                              if e.name.endswith(".sql")),
}))
"""


def test_installed_copy_is_the_one_imported_and_finds_its_migrations(
        installed: Installed, elsewhere: Path) -> None:
    result = _run([sys.executable, "-c", PROBE], cwd=elsewhere, env=_clean_env(installed.site))
    assert result.returncode == 0, _output(result)
    found = json.loads(result.stdout.strip().splitlines()[-1])
    for key in ("fashion_assets", "resources", "sensors", "replica", "migrations_folder"):
        path = Path(found[key]).resolve()
        assert path.is_relative_to(installed.site / "fashion_assets"), (
            f"{key} resolved to {path}, not to the installed copy in {installed.site}")
    shipped = sorted(p.name for p in (REPO / "sql").glob("[0-9]*.sql"))
    assert found["migration_files"] == shipped  # the dialect parts of a version included
    assert found["migrations"] == [name for name in shipped if name.count(".") == 1]


def test_demo_runs_from_an_empty_folder_with_the_defaults(
        installed: Installed, elsewhere: Path) -> None:
    """Bare machine: no FASHION_HOME, no DAGSTER_HOME; everything lands in the user's data
    folder (XDG_DATA_HOME/fashion-assets here), nothing in the working directory."""
    data = elsewhere.parent / "data"
    result = _run([sys.executable, "-m", "fashion_assets", "demo", *DEMO_ARGS],
                  cwd=elsewhere, env={**_clean_env(installed.site), "XDG_DATA_HOME": str(data)})
    assert result.returncode == 0, _output(result)
    site = build_site(brands=1, shows_per_brand=2, photos_per_show=3)
    brands = [b.slug for b in site.brands if b.slug != ROBOTS_BLOCKED_BRAND]
    assert brands
    home = data / "fashion-assets"
    # A line per run, naming a partition or a range of them.
    lines = lines_by_partition(result.stdout.splitlines(), home / "dagster")
    for key in [*brands, *(week.slug for week in site.impression.weeks)]:
        assert key in lines, f"no summary line for {key}\n{_output(result)}"
        assert "FAILED" not in lines[key][0], _output(result)

    catalog = home / "catalog.db"
    assert catalog.is_file(), _output(result)
    with sqlite3.connect(catalog) as conn:
        registered = {slug for (slug,) in conn.execute("SELECT slug FROM brands")}
        versions = [v for (v,) in conn.execute("SELECT version FROM schema_migrations")]
        street = conn.execute("SELECT count(*) FROM street_snap_drafts").fetchone()[0]
        second_source = conn.execute("SELECT count(*) FROM brand_runway_drafts"
                                     " WHERE source = 'theimpression'").fetchone()[0]
    assert registered == set(brands)
    assert versions == sorted({p.name[:4] for p in (REPO / "sql").glob("[0-9]*.sql")})
    assert street > 0 and second_source > 0, _output(result)
    objects = [p for p in (home / "objects").rglob("*") if p.is_file()]
    assert objects, f"the demo stored no photo in {home / 'objects'}"

    dagster_home = home / "dagster"
    assert f"its log: {dagster_home / 'dagster-dev.log'}" in result.stdout, _output(result)
    # The instance's runs and events, and the config crawl gives a new instance (no step
    # output captured: no compute-log folder, "storage").
    assert (dagster_home / "history" / "runs.db").is_file(), (
        f"no Dagster instance in {dagster_home}: {sorted(p.name for p in home.iterdir())}")
    assert "NoOpComputeLogManager" in (dagster_home / "dagster.yaml").read_text()
    assert not (dagster_home / "storage").exists()
    assert not list(elsewhere.iterdir()), (
        f"the demo wrote into the working directory: {sorted(elsewhere.iterdir())}")


def test_dagster_validates_the_installed_code_location(
        installed: Installed, elsewhere: Path) -> None:
    result = _run([sys.executable, "-m", "dagster", "definitions", "validate",
                   "-m", "fashion_assets.definitions"],
                  cwd=elsewhere, env=_clean_env(installed.site))
    assert result.returncode == 0, _output(result)
    assert "Validation successful" in result.stdout + result.stderr, _output(result)


def test_commands_run_in_the_source_root_next_to_the_installed_copy(
        installed: Installed) -> None:
    """The README's first command in a clone's root: ``pip install .``, then the demo and
    ``dagster definitions validate`` there. Dagster's subprocesses (``python -m dagster api
    ...``) put the working directory first on ``sys.path`` and import the checkout's package;
    it must be whole (this failed with "No module named 'fashion_assets.resources'")."""
    root = installed.source
    env = _clean_env(installed.site)
    probe = _run([sys.executable, "-c", "import fashion_assets.sensors.coverage as m;"
                  "import fashion_assets.sql; print(m.__file__)"], cwd=root, env=env)
    assert probe.returncode == 0, _output(probe)
    assert Path(probe.stdout.strip()).is_relative_to(root), _output(probe)  # the checkout's
    result = _run([sys.executable, "-m", "fashion_assets", "demo", *DEMO_ARGS],
                  cwd=root, env=env)
    assert result.returncode == 0, _output(result)
    assert "FAILED" not in result.stdout and "Traceback" not in result.stderr, _output(result)
    result = _run([sys.executable, "-m", "dagster", "definitions", "validate"],
                  cwd=root, env=env)
    assert result.returncode == 0, _output(result)
    assert "Validation successful" in result.stdout + result.stderr, _output(result)
