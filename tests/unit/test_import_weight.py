"""Every process that loads the Dagster definitions (the webserver, the daemon, each crawl
worker, every CLI command) must not pay for libraries only one step uses: pandas with
pyarrow (the catalog export, 35 MB) and numpy (the perceptual hash, 15 MB)."""

import subprocess
import sys

HEAVY = ("pandas", "pyarrow", "numpy")


def test_loading_the_definitions_leaves_the_export_and_hashing_libraries_unloaded() -> None:
    probe = ("import sys, fashion_assets.definitions, fashion_assets.cli; "
             f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "", f"loaded at import: {loaded}"
