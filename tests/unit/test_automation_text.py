"""status's automation line: sensors on and schedules off by default, exceptions named."""

from __future__ import annotations

from fashion_assets.domain.automation_text import automation_line, switched


def test_only_switches_against_the_default_are_named() -> None:
    states = [("coverage_sensor", "SENSOR", "STOPPED"), ("stuck_runs_sensor", "SENSOR",
                                                          "RUNNING"),
              ("full_crawl_schedule", "SCHEDULE", "RUNNING"),
              ("store_heal_schedule", "SCHEDULE", "STOPPED")]
    assert switched(states) == {"schedules_on": ["full_crawl_schedule"],
                                "sensors_off": ["coverage_sensor"]}
    assert switched([]) == {"schedules_on": [], "sensors_off": []}


def test_the_line_says_what_runs_where_and_how_to_turn_the_schedules_on() -> None:
    assert automation_line([], [], "fa") == (
        "automation: sensors on, ticking while Dagster's daemon runs (fa ui); schedules off "
        "(weekly crawls of the real sites and store checks: turn them on in the UI, "
        "Automation)")
    assert automation_line(["full_crawl_schedule"], ["coverage_sensor"], "fa") == (
        "automation: sensors on (turned off: coverage_sensor), ticking while Dagster's "
        "daemon runs (fa ui); schedules on: full_crawl_schedule; the others off")
