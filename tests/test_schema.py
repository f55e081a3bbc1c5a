"""The JSON Schemas published for editors accept exactly what the loader accepts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import REPO, committed

SCHEMAS = REPO / "registry" / "schema"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def load(path: Path) -> object:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


@pytest.mark.repo_data
def test_every_committed_entry_matches_the_schema() -> None:
    v = validator("entry.schema.json")
    files = sorted((REPO / "registry" / "gb").glob("GB*.yaml"))
    assert [p.stem for p in files] == list(committed().entries)
    for path in files:
        errors = list(v.iter_errors(load(path)))
        assert not errors, f"{path.name}: {errors[0].message}"
        # Each file names its schema so editors validate it while typing.
        assert path.read_text().startswith(
            "# yaml-language-server: $schema=../schema/entry.schema.json"
        )


@pytest.mark.repo_data
def test_sources_and_categories_match_their_schemas() -> None:
    validator("sources.schema.json").validate(load(REPO / "registry" / "sources.yaml"))
    validator("categories.schema.json").validate(load(REPO / "registry" / "categories.yaml"))


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("removed"),
        lambda d: d.update(id="GB12"),
        lambda d: d.update(extra=1),
        lambda d: d["history"][0].update(hints="not a list"),
        lambda d: d["history"][0].update(last_seen="2.8.0"),  # only replaced texts have it
        lambda d: d["history"][0].pop("current_since"),
        lambda d: d.update(history=[]),
        lambda d: d.update(replaced=[dict(d["history"][0])]),  # replaced needs last_seen
    ],
)
def test_schema_rejects_what_the_loader_rejects(damage: object) -> None:
    data = load(REPO / "registry" / "gb" / "GB0001.yaml")
    assert isinstance(data, dict)
    damage(data)  # type: ignore[operator]
    assert list(validator("entry.schema.json").iter_errors(data))
