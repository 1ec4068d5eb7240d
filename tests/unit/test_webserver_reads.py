"""What the command reads of its runs from the webserver's GraphQL answers, and the outcome
rule it applies to them (launch/webserver.py, launch/summaries.py): plain data in and out.

test_cli_runs.py and test_cli.py hold the same reading to the instance's on real runs."""

from __future__ import annotations

import json
import logging

from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.launch.summaries import RunEvent, outcome
from fashion_assets.launch.webserver import add_partitions_mutation, log_line, metadata, run_event

FAILURE = "dagster._core.definitions.events.Failure"


def entry(kind: str, label: str = "n", **fields: object) -> dict[str, object]:
    return {"__typename": kind, "label": label, **fields}


@given(st.integers())
def test_an_int_past_64_bits_is_read_whole(number: int) -> None:
    """GraphQL's Int is 32 bits: the webserver gives the value as its string too."""
    assert metadata([entry("IntMetadataEntry", intRepr=str(number))]) == {"n": number}


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                           lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                           max_leaves=10)


@given(json_values, st.lists(st.dictionaries(st.text(), st.integers() | st.text()),
                             max_size=5))
def test_json_and_tables_are_read_as_plain_values(value: object,
                                                  rows: list[dict[str, object]]) -> None:
    """A table as its rows, as ``report.plain_value`` gives it from the instance."""
    read = metadata([entry("JsonMetadataEntry", "json", jsonString=json.dumps(value)),
                     entry("TableMetadataEntry", "table",
                           table={"records": [json.dumps(row) for row in rows]})])
    assert read == {"json": value, "table": rows}


def test_plain_kinds_and_unknown_ones() -> None:
    assert metadata([entry("TextMetadataEntry", "t", text="s3://bucket"),
                     entry("FloatMetadataEntry", "f", floatValue=0.5),
                     entry("BoolMetadataEntry", "b", boolValue=True),
                     entry("NullMetadataEntry", "z")]) == {
        "t": "s3://bucket", "f": 0.5, "b": True, "z": None}


def test_a_step_failure_is_read_down_to_its_root_cause() -> None:
    failure = {"__typename": "ExecutionStepFailureEvent", "stepKey": "runway_show_listings",
               "message": 'Execution of step "runway_show_listings" failed.',
               "error": {"className": "DagsterExecutionStepExecutionError",
                         "message": "Error occurred while executing op", "causes": [
                             {"className": "Failure",
                              "message": f"{FAILURE}: no such designer on Vogue: chloe"}]}}
    event = run_event(failure)

    assert event == RunEvent("step_failure", "runway_show_listings", error=(
        "Failure", f"{FAILURE}: no such designer on Vogue: chloe"), message=failure["message"])
    assert outcome("r", False, [event]).errors == ["no such designer on Vogue: chloe"]


def test_a_run_whose_process_died_says_what_its_code_server_saw() -> None:
    events = [RunEvent("engine", message="[DagsterApiServer] Run execution process for r "
                       "was terminated by signal 9 (SIGKILL)."),
              RunEvent("run_failure", message="Execution of run for \"runway_crawl\" failed.")]

    assert outcome("r", False, events).errors == [
        "Run execution process for r was terminated by signal 9 (SIGKILL)."]


def test_the_last_materialization_of_an_asset_and_each_step_s_output_count() -> None:
    events = [RunEvent("materialization", "runway_drafts", {"images_stored": 1}),
              RunEvent("output", "store_heal", {"heal_healed": 2}),
              RunEvent("materialization", "runway_drafts", {"images_stored": 3})]

    read = outcome("r", True, events)

    assert read.success and read.errors == []
    assert read.materializations == {"runway_drafts": {"images_stored": 3}}
    assert read.outputs == {"store_heal": {"heal_healed": 2}}


def test_log_lines_keep_their_level_time_and_event_type() -> None:
    line = log_line({"__typename": "LogMessageEvent", "message": "[1/4] chloe: created",
                     "timestamp": "1765000000123", "level": "WARNING", "stepKey": "s",
                     "eventType": None}, "0123", "runway_crawl")

    assert (line.level, line.timestamp, line.event_type, line.run_id) == (
        logging.WARNING, 1765000000.123, None, "0123")
    assert run_event({"__typename": "LogMessageEvent"}) is None


@given(st.integers(min_value=1, max_value=40))
def test_one_mutation_adds_every_new_partition_each_under_its_alias(count: int) -> None:
    """The webserver runs a mutation's fields in order: one alias per key, its variable."""
    from graphql import OperationDefinitionNode, OperationType, parse

    [operation] = parse(add_partitions_mutation(count)).definitions
    assert isinstance(operation, OperationDefinitionNode)
    assert operation.operation == OperationType.MUTATION
    fields = operation.selection_set.selections
    assert [f.alias.value for f in fields] == [f"k{n}" for n in range(count)]
    assert {f.name.value for f in fields} == {"addDynamicPartition"}
    assert [f.arguments[2].value.name.value for f in fields] == [f"k{n}" for n in range(count)]
    assert [v.variable.name.value for v in operation.variable_definitions] == [
        "repo", "name", *(f"k{n}" for n in range(count))]
