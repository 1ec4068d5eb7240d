"""Settings: documented defaults that work on a bare machine, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import EnvVar

from fashion_assets import settings
from fashion_assets.resources import resources_from_env

CONFIGURATION = Path(__file__).parents[2] / "docs" / "configuration.md"


def test_defaults_put_everything_under_the_data_folder(tmp_path: Path) -> None:
    env = {"FASHION_HOME": str(tmp_path)}

    assert settings.database_url(env) == f"sqlite:///{tmp_path / 'catalog.db'}"
    assert settings.store_url(env) == f"file://{tmp_path / 'objects'}"
    assert settings.home_dir({}) == Path(".fashion").resolve()


def test_the_dagster_instance_is_dagster_home_else_under_the_data_folder(
        tmp_path: Path) -> None:
    """One rule for crawl (which creates it) and status (which reads its queue)."""
    assert settings.dagster_home({"FASHION_HOME": str(tmp_path)}) == tmp_path / "dagster"
    assert settings.dagster_home({"FASHION_HOME": str(tmp_path), "DAGSTER_HOME": " "}) == (
        tmp_path / "dagster")
    assert settings.dagster_home({"FASHION_HOME": str(tmp_path),
                                  "DAGSTER_HOME": "/srv/dagster"}) == Path("/srv/dagster")
    assert settings.dagster_home({}) == Path(".fashion").resolve() / "dagster"


def test_the_configuration_page_documents_every_setting_with_its_default() -> None:
    page = CONFIGURATION.read_text()
    for setting in settings.SETTINGS:
        assert f"| `{setting.env}` |" in page, setting.env
        if setting.default:
            assert f"| `{setting.env}` | `{setting.default}` |" in page, setting.env


def test_resources_take_values_from_a_given_mapping() -> None:
    resources = resources_from_env({"FASHION_IMAGE_CONCURRENCY": "3",
                                    "FASHION_OBEY_ROBOTS": "false",
                                    "FASHION_VOGUE_IMAGE_HOSTS": "a.example, b.example:8080"})

    crawler = resources["crawler"]
    assert crawler.image_concurrency == 3 and crawler.obey_robots is False
    assert crawler.http_retries == 4
    assert resources["vogue"].host_policy().allowed >= {"a.example", "b.example:8080"}


def test_settings_from_the_process_environment_reach_dagster_as_env_vars(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FASHION_DATABASE_URL", "postgresql+psycopg2://u:s3cret@db/catalog")
    monkeypatch.setenv("FASHION_IMAGE_CONCURRENCY", "8")

    resources = resources_from_env()

    # The UI shows the variable's name: the password never appears in the config.
    assert resources["catalog"].database_url == EnvVar("FASHION_DATABASE_URL")
    assert "s3cret" not in repr(resources["catalog"])
    assert resources["crawler"].image_concurrency == EnvVar.int("FASHION_IMAGE_CONCURRENCY")


@pytest.mark.parametrize(("name", "value"), [
    ("FASHION_IMAGE_CONCURRENCY", "many"),
    ("FASHION_IMAGE_CONCURRENCY", "-1"),
    ("FASHION_HTTP_TIMEOUT", "0"),
    ("FASHION_OBEY_ROBOTS", "perhaps"),
])
def test_bad_values_fail_with_the_setting_named(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name):
        resources_from_env({name: value})


def test_an_image_host_list_must_not_be_empty_entries() -> None:
    assert settings.split_hosts(" a.example , ,b.example ") == ("a.example", "b.example")
