"""The code location's domains, each building its own ``Definitions`` from its assets,
partitions, jobs, schedules and sensors side by side; ``definitions.py`` merges them."""
