"""What the reliability scenarios' crawls left, and the bench's figures judged and written up.

The crawls' results are read where they are kept: the drafts from the catalog, the objects
from the file store, the runs from the Dagster instance, and compared with what the replica
serves. The figures (``bench/reliability.py`` measures them) make the verdicts, the summary
for the terminal, and the ``## Faults``, ``## Kills``, ``## Concurrency`` and
``## Coverage loop`` sections of docs/reliability.md.

Other benches publish their sections of the same file through ``write_sections`` and
``publish``, which keep every section they do not name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import ROOT
from fashion_assets import settings
from fashion_assets.replica import ReplicaSite, photo_bytes
from fashion_assets.sources.vogue import PUBLIC_BASE_URL
from fashion_assets.storage import object_key
from fashion_assets.storage.base import is_object_path
from fashion_assets.storage.file import TEMP_PREFIX
from tests.catalog_db import query

DOC = ROOT / "docs" / "reliability.md"
SECTIONS = ("Faults", "Kills", "Concurrency", "Coverage loop")

Drafts = dict[str, tuple[str, ...]]


# -- what the crawls left -----------------------------------------------------------------


def expected_drafts(site: ReplicaSite, brands: Sequence[str] | None = None) -> Drafts:
    """The drafts a complete crawl makes of ``site`` (or of ``brands``): every show, every
    photo, under the sha1 of the bytes the replica serves."""
    return {PUBLIC_BASE_URL + show.path: tuple(object_key(photo_bytes(site, photo.photo_id))
                                               for photo in show.photos)
            for brand in site.brands if brands is None or brand.slug in brands
            for show in brand.shows}


@dataclass(frozen=True)
class DraftState:
    """The drafts of a catalog, and how many draft rows hold them (more rows than source
    URLs would be a duplicate draft)."""

    drafts: Drafts
    rows: int

    @property
    def duplicates(self) -> int:
        return self.rows - len(self.drafts)

    @property
    def photos(self) -> int:
        return sum(len(keys) for keys in self.drafts.values())

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key for keys in self.drafts.values() for key in keys)


def read_drafts(database_url: str) -> DraftState:
    rows = query(database_url,
                 "SELECT d.id, d.source_url, i.object_key FROM brand_runway_drafts d"
                 " LEFT JOIN brand_runway_draft_images i ON i.draft_id = d.id"
                 " ORDER BY d.id, i.position")
    by_id: dict[int, tuple[str, list[str]]] = {}
    for draft_id, url, key in rows:
        by_id.setdefault(draft_id, (url, []))[1].extend([key] if key else [])
    return DraftState({url: tuple(keys) for url, keys in by_id.values()}, len(by_id))


@dataclass(frozen=True)
class StoreContents:
    """The objects of a file store, and the temp files a kill left between write and link."""

    keys: frozenset[str]
    temp_files: int


def store_contents(root: Path) -> StoreContents:
    keys, temp_files = set(), 0
    for shard in root.iterdir() if root.is_dir() else ():
        for entry in shard.iterdir() if shard.is_dir() else ():
            if is_object_path(f"{shard.name}/{entry.name}"):
                keys.add(entry.name)
            elif entry.name.startswith(TEMP_PREFIX):
                temp_files += 1
    return StoreContents(frozenset(keys), temp_files)


def runs_by_status(env: Mapping[str, str]) -> dict[str, int]:
    """How many runs the crawls' Dagster instance holds in each status."""
    from collections import Counter

    from dagster import DagsterInstance

    home = settings.dagster_home({**os.environ, **env})
    with DagsterInstance.from_config(str(home)) as instance:
        return dict(Counter(run.status.value for run in instance.get_runs()))


def missing_photos(drafts: Drafts, reference: Drafts) -> int:
    """Photos of ``reference`` not in ``drafts`` (a show not drafted lacks all of its)."""
    return sum(len(set(keys) - set(drafts.get(url, ()))) for url, keys in reference.items())


# -- the figures, judged and written up ---------------------------------------------------


def verdicts(figures: dict[str, Any]) -> dict[str, bool]:
    """Each claim of the issue, held or not."""
    faults, kills = figures["faults"], figures["kills"]
    faulty = faults["faulty"]
    return {
        "faults: same drafts as the fault-free crawl": faults["same_drafts"]
        and faults["fault_free"]["equals_replica"] and faulty["ok"],
        "faults: no duplicate draft": faulty["duplicates"] == 0,
        "faults: no request inside a Retry-After window": faulty["violations"] == 0,
        "kills: the fault-free result after the last restart": kills["same_drafts"]
        and kills["final_ok"],
        "kills: no duplicate draft, no lost object": kills["duplicates"] == 0
        and kills["missing_objects"] == 0,
        "kills: unreferenced objects <= photos in flight": kills["unreferenced"]
        <= kills["in_flight"],
        "kills: no run left marked running": kills["runs_left_running"] == 0,
        **{f"concurrency {c['label']}: no failed run, no duplicate":
           c["failed_runs"] == 0 and c["duplicates"] == 0 and c["same_drafts"]
           for c in figures["concurrency"]},
        "coverage: the fault-free drafts within 3 sensor-driven rounds":
        figures["coverage"]["converged_in"] is not None
        and figures["coverage"]["converged_in"] <= figures["coverage"]["rounds_allowed"],
    }


def report(figures: dict[str, Any]) -> dict[str, str]:
    """The three sections of docs/reliability.md, by heading."""
    brands, shows, photos = figures["size"]
    held = verdicts(figures)
    measured = (f"Measured by `{figures['command']}` on {figures['date']}: replica of "
                f"{brands} brands x {shows} shows x {photos} photos ({figures['shows']} shows, "
                f"{figures['photos']:,} photos) in its own process, `fashion-assets crawl` in "
                "its own processes, catalog on a fresh PostgreSQL database per crawl, file "
                f"store; {figures['machine']['cpu']}.")
    return {"Faults": _faults_section(figures, held, measured),
            "Kills": _kills_section(figures, held, measured),
            "Concurrency": _concurrency_section(figures, held, measured),
            "Coverage loop": _coverage_section(figures, held, measured)}


def _mark(ok: bool) -> str:
    return "yes" if ok else "**NO**"


def _faults_section(figures: dict[str, Any], held: dict[str, bool], measured: str) -> str:
    f = figures["faults"]
    plan, clean, faulty = f["plan"], f["fault_free"], f["faulty"]
    throttled = faulty["by_status"].get(429, 0)
    rows = [("shows drafted", clean["shows"], faulty["shows"]),
            ("photos in drafts", clean["photos"], faulty["photos"]),
            ("photos missing", clean["missing_photos"], faulty["missing_photos"]),
            ("failed shows", clean["failed_shows"], faulty["failed_shows"]),
            ("duplicate drafts", clean["duplicates"], faulty["duplicates"]),
            ("requests", clean["requests"], faulty["requests"]),
            *[(f"answered {status}", clean["by_status"].get(status, 0), count)
              for status, count in faulty["by_status"].items()],
            ("dropped connections", clean["dropped"], faulty["dropped"]),
            ("truncated bodies", clean["truncated"], faulty["truncated"]),
            ("Retry-After violations", clean["violations"], faulty["violations"]),
            ("arrivals already in flight at a 429", clean["in_flight_after_429"],
             faulty["in_flight_after_429"]),
            ("wall s", f"{clean['wall_s']:.1f}", f"{faulty['wall_s']:.1f}")]
    return "\n".join([
        measured,
        "",
        f"Fault plan: {plan['error_5xx']:.0%} 5xx, {plan['rate_429']:.0%} 429 with "
        f"Retry-After {plan['retry_after_s']:.0f} s, {plan['drop']:.0%} dropped connections, "
        f"{plan['timeout']:.0%} hangs of {plan['hang_s']:.0f} s, {plan['truncate']:.0%} "
        f"truncated bodies (seed {plan['seed']}). Client: "
        + ", ".join(f"{k}={v}" for k, v in f["client"].items())
        + f"; {f['runs']} runs for {f['brands']} brands, {f['runs_at_once']} at once "
        "(dagster.yaml's max_concurrent_runs: the CPU count), each a process with its own "
        "client.",
        "",
        "| | fault-free | faults |",
        "|---|---|---|",
        *[f"| {name} | {a} | {b} |" for name, a, b in rows],
        "",
        f"- Same drafts (show URL -> object keys in order) as the fault-free crawl, which "
        f"equals the replica's shows: {_mark(held['faults: same drafts as the fault-free crawl'])}",
        f"- No duplicate draft: {_mark(held['faults: no duplicate draft'])}",
        f"- No request inside a Retry-After window: "
        f"{_mark(held['faults: no request inside a Retry-After window'])}; {f['retries']:,} "
        "requests more than the fault-free crawl (the retries).",
        "",
        f"The wall time under faults is the Retry-After windows: {throttled} answers 429, "
        f"each closing its host to every run for at least {plan['retry_after_s']:.0f} s. "
        "The 404s are the CDN's robots.txt, which it does not have (no rules).",
        "",
        "A request that arrives within 0.25 s of a 429 was already on its way when the 429 "
        "was sent (the client could not have read it), so the replica counts it apart, not "
        "as a violation. Windows are kept per host for every client on the machine: the "
        "runs' processes, and each step's client, honour a window given to any of them.",
        "",
        "A request drawn to hang past the client's timeout gets no answer once the client "
        "has hung up: a 429 then would open a Retry-After window that nobody was told about.",
    ])


def _kills_section(figures: dict[str, Any], held: dict[str, bool], measured: str) -> str:
    k = figures["kills"]
    kills = k["kills"]
    return "\n".join([
        measured,
        "",
        f"{len(kills)} SIGKILLs of the `fashion-assets crawl` command's process group, each "
        f"at a random moment (seed {figures['seed']}): the replica's gate lets a random number "
        "of photo requests through, the command is killed as soon as one waits at the gate, "
        "then run again. The crawl's work is done in the run processes of the `dagster dev` "
        "the command started, in a session of its own: that deployment ends by itself once "
        "the command is gone (its watchdog stops `dagster dev`, then kills its process group "
        f"after {k['grace_s']:.0f} s at most), and the next command waits until no process of "
        "the killed crawl is left, then fails the runs the killed one left marked as running. "
        "After the last kill the crawl runs to completion.",
        "",
        "| kill | photo requests let through | drafts committed | in flight | "
        "stored, not yet referenced | s until the deployment was gone |",
        "|---|---|---|---|---|---|",
        *[f"| {n} | {r['after']} | {r['drafts']} | {r['in_flight']} | {r['unreferenced']} | "
          f"{r['gone_s']:.1f} |" for n, r in enumerate(kills, 1)],
        "",
        "| after the last restart | |",
        "|---|---|",
        f"| final run succeeded | {_mark(k['final_ok'])}: shows created {k['final_created']}, "
        f"already drafted {k['final_skipped']} |",
        f"| drafts equal the fault-free result | {_mark(k['same_drafts'])} |",
        f"| duplicate drafts | {k['duplicates']} |",
        f"| objects referenced but missing | {k['missing_objects']} |",
        f"| objects left unreferenced | {k['unreferenced']} |",
        f"| photos in flight at the kills (sum) | {k['in_flight']} (bound: "
        f"{k['in_flight_bound']} per kill, {k['image_concurrency']} per run, at most a run "
        "per brand) |",
        f"| runs of the killed commands failed by the next one | {k['runs_failed']} |",
        f"| runs left marked as running | {k['runs_left_running']} |",
        f"| temp files left (a kill between write and link; never objects) | "
        f"{k['temp_files']} |",
        f"| wall s, kills and restarts included (each command starts `dagster dev`) | "
        f"{k['wall_s']:.1f} |",
        "",
        f"- Unreferenced objects <= photos in flight at the kills: "
        f"{_mark(held['kills: unreferenced objects <= photos in flight'])}.",
        "",
        "A kill loses the shows in progress, never a committed one: a draft, its photos and "
        "its log entry commit in one transaction, after the photos are flushed. Photos "
        "stored for a show in progress are unreferenced until the restart drafts the show "
        "and references the same keys again (same bytes, same sha1), so none is left once "
        "the crawl completes. In flight counts the photo requests waiting at the gate when "
        "the command was killed; the gate stays closed until its deployment is gone, so no "
        "photo of the killed crawl passes after the kill.",
    ])


def _concurrency_section(figures: dict[str, Any], held: dict[str, bool], measured: str
                         ) -> str:
    rows = figures["concurrency"]
    return "\n".join([
        measured,
        "",
        "Four `fashion-assets crawl` commands started at once on one catalog and one store, "
        "of the same brand, then of the same two brands (a run per brand, both at once). "
        "Each command has a Dagster instance of its own: one instance's run queue runs the "
        "crawls of a brand one after the other (dagster.yaml's tag limits), so these runs "
        "overlap as only runs the queue does not see can (another deployment, a run "
        "executed in process), and the catalog alone settles their races. Each run takes "
        "one show and one photo at a time and is frozen at its first photo request until "
        "every run has reached one, so all of them plan every show before any draft is "
        "written. They do not obey robots.txt: the gate holds the CDN's robots.txt too, and "
        "one client reads it for all (the others wait for what it keeps), so only one run "
        "would reach the gate.",
        "",
        "| runs | shows | failed runs | failed shows | created | skipped (conflict) | "
        "skipped (already drafted) | duplicate drafts | drafts equal the replica's | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *[f"| {c['label']} | {c['shows']} | {c['failed_runs']} | {c['failed_shows']} | "
          f"{c['created']} | {c['conflicts']} | {c['skipped']} | {c['duplicates']} | "
          f"{_mark(c['same_drafts'])} | {c['wall_s']:.1f} |" for c in rows],
        "",
        "A show two runs download at once is drafted by the first to commit; the other's "
        "insert meets the unique source key and is recorded as `skipped_conflict`, its "
        "photos being the same objects under the same keys.",
    ])


def _coverage_section(figures: dict[str, Any], held: dict[str, bool], measured: str) -> str:
    coverage = figures["coverage"]
    verdict = "coverage: the fault-free drafts within 3 sensor-driven rounds"
    return "\n".join([
        measured,
        "",
        "One crawl of every brand in this process under the fault plan below, with a client "
        "that gives up fast (`" + " ".join(f"{k}={v}" for k, v in coverage["client"].items())
        + "`), so photos go missing; then ticks of `coverage_sensor` on the back-off's schedule "
        "(0 h, 1 h, 3 h on its clock), each requested repair run executed, the faults still "
        "on. The tolerance is 0 "
        "so that every missing photo makes its show incomplete: the loop must end with "
        "exactly the drafts of the fault-free crawl.",
        "",
        f"Fault plan: `{coverage['plan']}`.",
        "",
        f"Photos missing after the crawl: {coverage['missing_after_crawl']}.",
        "",
        "| round | repair runs | shows re-fetched | shows repaired | photos still missing |"
        " drafts equal the replica's |",
        "|---|---|---|---|---|---|",
        *[f"| {n} | {r['runs']} | {r['shows']} | {r['repaired']} | {r['missing_after']} | "
          f"{_mark(r['equals_replica'])} |" for n, r in enumerate(coverage["rounds"], 1)],
        "",
        f"Converged within 3 sensor-driven rounds: {_mark(held[verdict])}"
        f" (in {coverage['converged_in']}); wall {coverage['wall_s']:.1f} s.",
    ])


def write_sections(sections: Mapping[str, str], path: Path = DOC) -> None:
    """Replace the ``## <heading>`` sections of ``path`` named in ``sections``.

    Other scripts write other sections of the same file, so it is read right before writing
    and everything else is kept as it is; a missing section is appended, a missing file
    created.
    """
    text = path.read_text() if path.exists() else (
        "# Reliability\n\nHow the crawl holds up against a failing source, kills and "
        "concurrent runs. Each section is written by the script it names.\n")
    head, *parts = text.split("\n## ")
    blocks = {part.split("\n", 1)[0].strip(): part for part in parts}
    for heading, body in sections.items():
        blocks[heading] = f"{heading}\n\n{body.strip()}\n"
    out = head.rstrip("\n") + "\n" + "".join(f"\n## {block.rstrip(chr(10))}\n"
                                             for block in blocks.values())
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    temp.write_text(out)
    os.replace(temp, path)


def publish(text: str, heading: str, doc: Path, write: bool) -> None:
    """A bench's figures to the terminal and, with ``--write``, as the ``heading`` section
    of ``doc``."""
    print(text)
    if write:
        write_sections({heading: text}, doc)
        print(f"wrote the {heading!r} section of {doc}")


def summary_table(figures: dict[str, Any]) -> str:
    """The verdicts and the key figures, for the terminal."""
    faults, kills = figures["faults"], figures["kills"]
    lines = [f"{'check':<58} result",
             *[f"{name:<58} {'ok' if ok else 'FAILED'}" for name, ok in verdicts(figures).items()],
             "",
             f"faults: {faults['faulty']['requests']:,} requests "
             f"({faults['retries']:,} retries), by status {faults['faulty']['by_status']}, "
             f"{faults['faulty']['dropped']} dropped, {faults['faulty']['truncated']} "
             f"truncated, {faults['faulty']['in_flight_after_429']} in flight after a 429; "
             f"wall {faults['fault_free']['wall_s']:.1f} s fault-free, "
             f"{faults['faulty']['wall_s']:.1f} s with faults",
             f"kills: {len(kills['kills'])} kills, {kills['in_flight']} photos in flight in "
             f"all, {kills['unreferenced']} objects left unreferenced, "
             f"{kills['temp_files']} temp files, {kills['runs_failed']} killed runs failed, "
             f"deployment gone after {max((k['gone_s'] for k in kills['kills']), default=0):.1f}"
             f" s at most; wall {kills['wall_s']:.1f} s",
             *[f"concurrency {c['label']}: {c['created']} created, {c['conflicts']} conflicts, "
               f"{c['skipped']} skipped, {c['failed_runs']} failed runs, {c['duplicates']} "
               f"duplicates; wall {c['wall_s']:.1f} s" for c in figures["concurrency"]],
             f"coverage: {figures['coverage']['missing_after_crawl']} photos missing after the "
             f"crawl, rounds {[r['missing_after'] for r in figures['coverage']['rounds']]}"]
    return "\n".join(lines)


def failure_logs(figures: dict[str, Any]) -> list[str]:
    """The end of the log of every crawl that failed, to see why without re-running."""
    tails = [figures["faults"][k]["log_tail"] for k in ("fault_free", "faulty")
             if not figures["faults"][k]["ok"]]
    if not figures["kills"]["final_ok"]:
        tails.append(figures["kills"]["log_tail"])
    return tails + [t for c in figures["concurrency"] for t in c["log_tails"]]
