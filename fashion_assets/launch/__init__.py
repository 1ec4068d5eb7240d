"""How the ``fashion-assets`` command gets runs done: through a Dagster deployment.

Every run the command makes (``crawl``, ``brands discover``, ``store heal``, the demo) is
submitted to the instance's run queue through the webserver's GraphQL, as the UI submits
one, and launched and executed by the daemon under ``dagster.yaml`` (run coordinator, run
launcher, executor), as a schedule's or a sensor's runs are. The command then follows its
runs through the same webserver (status, log lines, materializations) to print progress
and a summary, without importing Dagster itself. Where no deployment runs, the command
starts ``dagster dev`` for its own runs and stops it at the end (``deployment.py``).
"""
