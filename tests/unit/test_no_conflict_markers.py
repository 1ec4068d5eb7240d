"""No file of the repository keeps a merge's conflict markers (a merge once committed them
into docs/architecture.md, where no test of the code looks)."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[2]
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)


def test_no_tracked_file_has_conflict_markers() -> None:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    marked = []
    for name in listed:
        path = ROOT / name
        if path.suffix in {".png", ".jpg", ".whl", ".gz"} or not path.is_file():
            continue
        if MARKER.search(path.read_text(errors="replace")):
            marked.append(name)
    assert marked == []
