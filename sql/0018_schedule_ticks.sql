-- Each schedule's last evaluated tick (fashion_assets/catalog/ticks.py). Dagster's daemon runs
-- only the latest of the ticks it missed (a daemon down, a schedule stopped) and drops the
-- others with a line in its own log; each schedule of the project reads the tick it
-- evaluated before and reports the ones in between (domain/ticks.py).
CREATE TABLE schedule_ticks (
    schedule_name TEXT PRIMARY KEY,
    scheduled_at TIMESTAMP NOT NULL,
    missed_total INTEGER NOT NULL DEFAULT 0
);
