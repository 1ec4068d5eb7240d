"""What the command line says about promotion, as pure text rules.

Approved drafts reach the catalog only through a run of ``promote_approved_drafts``, which
the ``approved_drafts_sensor`` (on by default) launches while a Dagster daemon runs: a
``dagster dev`` such as ``fashion-assets ui``, or production's daemon. A user of the command
line alone runs no daemon between commands, would approve drafts and see nothing happen:
``review approve``, ``status`` and ``looks find`` therefore say how the drafts get
promoted, and ``review promote`` sums up its run, in the words kept here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fashion_assets.domain.wording import agreeing, counted

COUNTS = ("drafts_promoted", "entries_created", "entries_updated", "photos_added",
          "alternates", "uncertain_pairs")
"""The figures ``catalog_entries`` records per kind, as ``{kind}_{figure}`` metadata."""


def waiting_hint(waiting: int, program: str) -> str:
    """The line that says how many approved drafts wait and the two ways they get promoted;
    empty when none waits, so that a line is printed only when there is something to do."""
    if waiting <= 0:
        return ""
    return (f"{counted(waiting, 'approved draft')} {agreeing(waiting, 'waits', 'wait')} "
            "for promotion into the catalog: "
            f"{program} review promote promotes them now, or the approved_drafts_sensor within "
            f"a minute while Dagster's daemon runs ({program} ui)")


def nothing_waits(program: str) -> str:
    """Why ``review promote`` launched no run: there was nothing to promote."""
    return (f"no approved draft waits for promotion: nothing to run (approve drafts first: "
            f"{program} review approve 12 street:7)")


def empty_catalog(program: str) -> str:
    """``looks find``'s answer when the catalog holds no look at all: "no look within N
    bits" would send the user to tune the distance, when drafts were never promoted."""
    return (f"no match: the catalog has no promoted look yet; approved drafts become looks "
            f"once promoted ({program} review promote)")


def failed_line(error: str) -> str:
    """A failed run in one line, as every failure of a command is (Dagster's error for a
    blocking check spans several)."""
    return f"review promote: FAILED - {' '.join(error.split())}"


def promoted_counts(metadata: Mapping[str, Any], kinds: Sequence[str]
                    ) -> dict[str, dict[str, int]]:
    """Per kind, the figures of a ``catalog_entries`` materialization's metadata (0 for a
    figure it lacks, as a run that failed before the step has none)."""
    return {kind: {name: int(metadata.get(f"{kind}_{name}", 0)) for name in COUNTS}
            for kind in kinds}


def promoted_line(counts: Mapping[str, Mapping[str, int]]) -> str:
    """A run's figures in one line, a part per kind: ``runway: 8 drafts promoted into 8 new
    and 0 updated entries, 96 photos added; street: nothing approved``."""
    parts = []
    for kind, c in counts.items():
        if not c["drafts_promoted"]:
            parts.append(f"{kind}: nothing approved")
            continue
        extra = "".join(
            f", {counted(c[name], one, many)}" for name, one, many in (
                ("alternates", "photo kept as another source's alternate of a look",
                 "photos kept as another source's alternate of a look"),
                ("uncertain_pairs", "pair of photos left for an editor",
                 "pairs of photos left for an editor"))
            if c[name])
        entries = "entry" if c["entries_created"] + c["entries_updated"] == 1 else "entries"
        parts.append(f"{kind}: {counted(c['drafts_promoted'], 'draft')} promoted into "
                     f"{c['entries_created']} new and {c['entries_updated']} updated {entries}, "
                     f"{counted(c['photos_added'], 'photo')} added{extra}")
    return "; ".join(parts)
