"""Quorum configuration under the KIP-595 names."""

from __future__ import annotations

import pytest

from reference.core.config import ConfigError, QuorumConfig


def test_from_kip_properties() -> None:
    cfg = QuorumConfig.from_properties({
        "quorum.voters": "1@kafka-1:9092, 2@kafka-2:9092,3@kafka-3:9092",
        "quorum.fetch.timeout.ms": "2000",
        "quorum.election.timeout.ms": "1000",
        "quorum.election.backoff.max.ms": "1000",
        "quorum.request.timeout.ms": "2000",
        "quorum.retry.backoff.ms": "20",
        "quorum.retry.backoff.max.ms": "1000",
    })
    assert cfg.voters == {1, 2, 3} and cfg.majority == 2 and cfg.fetch_timeout_ms == 2000
    assert QuorumConfig.from_properties(cfg.as_properties()) == cfg


def test_successor_backoff_follows_the_kip_formula() -> None:
    cfg = QuorumConfig(voters=frozenset({1, 2, 3}), retry_backoff_ms=20, retry_backoff_max_ms=100)
    assert [cfg.successor_backoff_ms(n) for n in range(6)] == [0, 20, 40, 80, 100, 100]


@pytest.mark.parametrize(
    ("props", "needle"),
    [
        ({"quorum.voters": "x@h:1"}, "quorum.voters"),
        ({"quorum.voters": "1@h:1", "quorum.fetch.timeout.ms": "soon"}, "quorum.fetch.timeout.ms"),
        ({"quorum.voters": "1@h:1", "quorum.retry.backoff.ms": "0"}, "quorum.retry.backoff.ms"),
        ({"quorum.voters": "1@h:1", "quorum.typo.ms": "1"}, "quorum.typo.ms"),
        ({}, "quorum.voters"),
    ],
)
def test_bad_properties_name_the_key(props: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle.replace(".", r"\.")):
        QuorumConfig.from_properties(props)
