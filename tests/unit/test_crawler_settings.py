"""The crawler's rules from the settings (``crawler_settings``): what the commands that only
report read, the same as the Dagster resource's, each variable checked with its name."""

from __future__ import annotations

import pytest

from fashion_assets.crawler_settings import backpressure_rules, coverage_rules, from_env
from fashion_assets.resources import resources_from_env

ENV = {"FASHION_COVERAGE_TOLERANCE": "5", "FASHION_COVERAGE_FALLBACK": "30",
       "FASHION_BACKPRESSURE_PAUSE_PENDING": "700", "FASHION_BACKPRESSURE_ALERT_PENDING": "3"}


def test_the_settings_give_the_resource_s_rules() -> None:
    crawler = resources_from_env(ENV)["crawler"]
    assert coverage_rules(from_env(ENV)) == crawler.coverage_rules()
    assert backpressure_rules(from_env(ENV)) == crawler.backpressure_rules()
    assert (coverage_rules(from_env(ENV)).tolerance,
            backpressure_rules(from_env(ENV)).alert_pending) == (5, 3)


@pytest.mark.parametrize(("value", "said"), [("many", "is not a valid int"),
                                             ("0", "must be positive")])
def test_a_bad_threshold_is_named(value: str, said: str) -> None:
    with pytest.raises(ValueError, match=f"FASHION_BACKPRESSURE_PAUSE_PENDING='{value}' {said}"):
        backpressure_rules(from_env({"FASHION_BACKPRESSURE_PAUSE_PENDING": value}))
