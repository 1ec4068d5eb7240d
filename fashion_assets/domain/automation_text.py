"""What ``status`` says about the sensors and schedules, as a pure text rule.

The sensors run by default and the schedules do not (docs/operations.md, "The schedule and
the sensors"); an operator may have switched some either way, which Dagster stores in the
instance. A newcomer sees nothing of it from the command line, so ``status`` says which
are on, that they tick only while a daemon runs, and where the schedules are turned on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def switched(states: Iterable[tuple[str, str, str]]) -> dict[str, list[str]]:
    """From the instance's stored states, ``(name, kind, status)`` with Dagster's values
    (kind ``SCHEDULE`` or ``SENSOR``, status ``RUNNING`` or ``STOPPED``): the schedules
    turned on and the sensors turned off, each against its default."""
    found: dict[str, list[str]] = {"schedules_on": [], "sensors_off": []}
    for name, kind, status in states:
        if kind == "SCHEDULE" and status == "RUNNING":
            found["schedules_on"].append(name)
        elif kind == "SENSOR" and status == "STOPPED":
            found["sensors_off"].append(name)
    return {key: sorted(names) for key, names in found.items()}


def automation_line(schedules_on: Sequence[str], sensors_off: Sequence[str],
                    program: str) -> str:
    """``automation: sensors on ...; schedules off ...``, naming the exceptions."""
    sensors = "sensors on" + (f" (turned off: {', '.join(sensors_off)})" if sensors_off
                              else "")
    schedules = (f"schedules on: {', '.join(schedules_on)}; the others off" if schedules_on
                 else "schedules off (weekly crawls of the real sites and store checks: turn "
                      "them on in the UI, Automation)")
    return (f"automation: {sensors}, ticking while Dagster's daemon runs ({program} ui); "
            f"{schedules}")
