"""The demo's last words: how to open the UI on its instance, what runs there by itself and
what does not, and why the hostile brand's failures are no breakage."""

from __future__ import annotations

from fashion_assets.demo import hostile_note, next_steps


def test_the_demo_opens_the_ui_on_its_instance_and_says_what_runs_by_itself() -> None:
    lines = next_steps("acne-studios", program="fa", dagster="dg").splitlines()

    rows = {line.split("  ")[1]: line for line in lines if line.startswith("  fa ")}
    assert "Dagster UI" in rows["fa ui"]
    assert "plain `dg dev` here opens the same" in rows["fa home > .env"]
    assert not any("DAGSTER_HOME=" in line for line in lines)  # one way, not a variable
    [automation] = [line for line in lines if line.startswith("While Dagster's daemon runs")]
    for what in ("approved drafts are promoted", "incomplete shows re-fetched",
                 "hung runs ended", "schedules", "are off: turn them on in the UI"):
        assert what in automation, what


def test_the_hostile_brand_is_said_to_fail_on_purpose() -> None:
    note = hostile_note("hostile-house", program="fa")

    assert note.startswith("hostile-house is the replica's deliberately hostile brand")
    assert "failed shows and missing photos are expected" in note
    assert "(fa coverage list)" in note
