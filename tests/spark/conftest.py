"""One local Spark session for every Spark test: 2 cores, a failed task retried once."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.tla.cfg import read_config
from conformance.validate.runner import ValidatorConfig

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
CORPUS = ROOT / "traces" / "corpus"
# The rule toggles that corpus headers written before they listed every constant lack.
TOGGLES = ROOT / "tests" / "conformance" / "fixtures" / "kraft_toggles.cfg"
MASTER = "local[2,2]"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="the spark extra is not installed")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime for Spark")
    from conformance.spark.session import spark_session

    session = spark_session(MASTER, "kraftcheck tests")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def config() -> ValidatorConfig:
    return ValidatorConfig(spec=SPEC, constants=dict(read_config(TOGGLES).constants), search_path=(SPEC.parent,))
