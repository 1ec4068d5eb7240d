"""``fashion-assets home`` and ``fashion-assets ui``: the command's data folder and Dagster
instance, and the Dagster UI on them.

Dagster's own ``dagster dev`` opens the instance of ``DAGSTER_HOME`` and, when it is unset,
a temporary one in the working directory that it deletes at its end; it reads a ``.env``
file of the working directory before it chooses. So the UI shows the command's runs either
through ``ui``, which starts ``dagster dev`` on the command's instance, or through plain
``dagster dev`` once ``home``'s lines are exported or written into ``.env``.
"""

from __future__ import annotations

import shlex
import time

import click

from fashion_assets import settings
from fashion_assets.cli.common import WholeNumber, program

UI_PORT = 3000
"""``dagster dev``'s own default port."""
POLL_S = 1.0


@click.command()
def home() -> None:
    """Print the data folder and the Dagster instance of this command, as shell lines:
    eval "$(fashion-assets home)", or write them into .env, and plain `dagster dev` opens
    the same instance."""
    from fashion_assets.launch.instance import default_dagster_home

    dagster_home = default_dagster_home()  # created with its dagster.yaml: dagster dev needs it
    click.echo(home_lines(settings.home_dir(), dagster_home, program=program()))


def home_lines(data: object, dagster_home: object, *, program: str) -> str:
    """``export`` lines that a shell evaluates and that ``dagster dev`` reads from ``.env``
    (python-dotenv takes ``export`` and shell quoting alike)."""
    return "\n".join([
        f'# eval "$({program} home)", or {program} home > .env: then `dagster dev` here '
        "opens this instance",
        f"export FASHION_HOME={shlex.quote(str(data))}",
        f"export DAGSTER_HOME={shlex.quote(str(dagster_home))}",
    ])


@click.command()
@click.option("--port", type=WholeNumber(1, 65535), default=UI_PORT, show_default=True,
              help="The webserver's port.")
def ui(port: int) -> None:
    """Open the Dagster UI on this command's instance (DAGSTER_HOME): the runs, assets and
    sensors of every crawl it made; Ctrl-C stops it."""
    from fashion_assets.launch.deployment import answers, dagster_ui

    with dagster_ui(port, note=lambda line: None) as deployment:
        click.echo(f"Dagster UI at {deployment.url} on DAGSTER_HOME="
                   f"{settings.dagster_home()}, with its daemon: the sensors run while it "
                   f"does; schedules are off (turn them on under Automation). Ctrl-C stops it;"
                   f" its log: {deployment.log}")
        try:
            while answers(deployment.url):
                time.sleep(POLL_S)  # polling a real condition: the webserver still answers
        except KeyboardInterrupt:
            click.echo("stopping the Dagster UI")
            return
    raise click.ClickException(f"`dagster dev` ended by itself; its log: {deployment.log}")

