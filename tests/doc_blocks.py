"""The shell examples of README.md and docs/: each ``sh`` block, where it is, and how the
examples test takes it (the HTML comment on the line above it says, if anything).

A block is run as written unless the comment above it is one of:

- ``<!-- demo-command -->``, ``<!-- test-command -->``: ``.ci/run`` runs these verbatim in a
  fresh clone (they build a virtual environment);
- ``<!-- serves until stopped -->``: a server; the test starts it, asks it for the page it
  announces, and stops it;
- ``<!-- not run by the examples test: REASON -->``: a recipe for other machines or a
  benchmark of many minutes; the reason is required, so nothing is left out unsaid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parents[1]
RUN_BY_CI = ("<!-- demo-command -->", "<!-- test-command -->")
SERVES = "<!-- serves until stopped -->"
NOT_RUN = re.compile(r"<!-- not run by the examples test: (?P<reason>.*\S.*) -->")
_FENCE = re.compile(r"^```(?P<lang>\S*)\s*$")


@dataclass(frozen=True)
class Block:
    """One ``sh`` block: its file, the line of its fence, its text and the comment above."""

    path: str
    line: int
    text: str
    comment: str

    @property
    def how(self) -> str:
        """``run``, ``serve``, ``ci`` or ``skip`` (with a reason: see the module)."""
        if self.comment in RUN_BY_CI:
            return "ci"
        if self.comment == SERVES:
            return "serve"
        if NOT_RUN.fullmatch(self.comment):
            return "skip"
        return "run"


def shell_blocks(path: str, text: str) -> list[Block]:
    """Every ``sh`` block of a Markdown text, in order (other languages are not examples)."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        end = next((i for i in range(index + 1, len(lines)) if lines[i].startswith("```")),
                   len(lines))
        if fence["lang"] == "sh":
            above = next((lines[i].strip() for i in range(index - 1, -1, -1)
                          if lines[i].strip()), "")
            comment = above if above.startswith("<!--") else ""
            blocks.append(Block(path, index + 1, "\n".join(lines[index + 1:end]), comment))
        index = end + 1
    return blocks


def documented_blocks(root: Path = ROOT) -> list[Block]:
    """The README's blocks, then those of docs/ page by page, in reading order."""
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [block for page in pages
            for block in shell_blocks(str(page.relative_to(root)), page.read_text())]
