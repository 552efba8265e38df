"""Quorum configuration, under the configuration names of KIP-595."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# The KIP's configuration keys, in the order the KIP lists them.
CONFIG_KEYS: tuple[str, ...] = (
    "quorum.voters",
    "quorum.fetch.timeout.ms",
    "quorum.election.timeout.ms",
    "quorum.election.backoff.max.ms",
    "quorum.request.timeout.ms",
    "quorum.retry.backoff.ms",
    "quorum.retry.backoff.max.ms",
)


class ConfigError(ValueError):
    """A configuration value that is missing, malformed or out of range."""


@dataclass(frozen=True)
class QuorumConfig:
    """The static quorum configuration every replica starts with."""

    voters: frozenset[int]
    fetch_timeout_ms: int = 2000
    election_timeout_ms: int = 1000
    election_backoff_max_ms: int = 1000
    request_timeout_ms: int = 2000
    retry_backoff_ms: int = 20
    retry_backoff_max_ms: int = 1000

    def __post_init__(self) -> None:
        if not self.voters:
            raise ConfigError("quorum.voters: at least one voter is required")
        for voter in self.voters:
            if voter < 0:
                raise ConfigError(f"quorum.voters: voter id {voter} is negative")
        for key, value in self.as_properties().items():
            if key != "quorum.voters" and int(value) <= 0:
                raise ConfigError(f"{key}: must be positive, got {value}")

    @property
    def majority(self) -> int:
        """The number of voters that forms a majority."""
        return len(self.voters) // 2 + 1

    def successor_backoff_ms(self, position: int) -> int:
        """Election delay of the preferred successor at 0-based ``position`` (KIP-595).

        The first successor (position 0) starts its election at once; the one at
        position N > 0 waits ``MIN(retryBackoffMaxMs, retryBackoffMs * 2^(N-1))``.
        """
        if position <= 0:
            return 0
        return min(self.retry_backoff_max_ms, self.retry_backoff_ms * 2 ** (position - 1))

    def timing(self) -> dict[str, int]:
        """The timer settings as the spec's constant ``Timing`` (field -> ms)."""
        return {
            "electionTimeout": self.election_timeout_ms,
            "fetchTimeout": self.fetch_timeout_ms,
            "requestTimeout": self.request_timeout_ms,
            "retryBackoff": self.retry_backoff_ms,
            "retryBackoffMax": self.retry_backoff_max_ms,
            "electionBackoffMax": self.election_backoff_max_ms,
        }

    def as_properties(self) -> dict[str, str]:
        """The configuration as KIP-595 property strings."""
        return {
            "quorum.voters": ",".join(f"{v}@node-{v}:9093" for v in sorted(self.voters)),
            "quorum.fetch.timeout.ms": str(self.fetch_timeout_ms),
            "quorum.election.timeout.ms": str(self.election_timeout_ms),
            "quorum.election.backoff.max.ms": str(self.election_backoff_max_ms),
            "quorum.request.timeout.ms": str(self.request_timeout_ms),
            "quorum.retry.backoff.ms": str(self.retry_backoff_ms),
            "quorum.retry.backoff.max.ms": str(self.retry_backoff_max_ms),
        }

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> QuorumConfig:
        """Parse KIP-595 properties; ``quorum.voters`` is ``id@host:port,...``."""
        unknown = sorted(k for k in props if k not in CONFIG_KEYS)
        if unknown:
            raise ConfigError(f"unknown configuration key(s): {', '.join(unknown)}")
        if "quorum.voters" not in props:
            raise ConfigError("quorum.voters: missing")
        voters: set[int] = set()
        for item in props["quorum.voters"].split(","):
            ident = item.strip().split("@", 1)[0]
            try:
                voters.add(int(ident))
            except ValueError:
                raise ConfigError(f"quorum.voters: {item.strip()!r} does not start with an integer id") from None
        numbers: dict[str, int] = {}
        for key in CONFIG_KEYS[1:]:
            if key in props:
                try:
                    numbers[key] = int(props[key])
                except ValueError:
                    raise ConfigError(f"{key}: {props[key]!r} is not an integer") from None
        field_of = {
            "quorum.fetch.timeout.ms": "fetch_timeout_ms",
            "quorum.election.timeout.ms": "election_timeout_ms",
            "quorum.election.backoff.max.ms": "election_backoff_max_ms",
            "quorum.request.timeout.ms": "request_timeout_ms",
            "quorum.retry.backoff.ms": "retry_backoff_ms",
            "quorum.retry.backoff.max.ms": "retry_backoff_max_ms",
        }
        return cls(voters=frozenset(voters), **{field_of[k]: v for k, v in numbers.items()})


@dataclass(frozen=True)
class ReplicaOptions:
    """Tuning that is not KIP configuration, and the bug switches."""

    fetch_interval_ms: int = 50
    # records per FetchResponse at most (Kafka caps a fetch by bytes, replica.fetch.max.bytes);
    # the spec lets the leader cap the batch, and a cap keeps every message, and so every
    # trace event, bounded in size however long the log grows
    fetch_max_records: int = 100
    bugs: frozenset[str] = frozenset()
