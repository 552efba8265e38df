"""Readable differences between an expected and an observed value (logs, message sets, records).

``first_difference`` walks both values in parallel and names the first place they differ
with a TLA+-style path: ``[4].epoch`` is field ``epoch`` of the 4th element of a sequence
(Kafka offset 3 of a log), ``[2]`` a function argument, ``{...}`` set members.
"""

from __future__ import annotations

from typing import Any

from conformance.tla.values import Fn, format_value, sorted_values

ABBREVIATE_AT = 160


def abbreviate(v: Any, limit: int = ABBREVIATE_AT) -> str:
    """TLA+ text of a value, cut to ``limit`` characters with the total length noted."""
    text = format_value(v)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} chars)"


def first_difference(expected: Any, observed: Any, path: str = "") -> str:
    """Where ``expected`` and ``observed`` first differ; ``""`` when they are equal."""
    if expected == observed:
        return ""
    here = path or "value"
    te, to = type(expected), type(observed)
    if te is tuple and to is tuple:
        for i, (a, b) in enumerate(zip(expected, observed, strict=False)):
            if a != b:
                return first_difference(a, b, f"{path}[{i + 1}]")
        shorter, longer = (expected, observed) if len(expected) < len(observed) else (observed, expected)
        which = "observed" if longer is observed else "expected"
        extra = longer[len(shorter)]
        return (f"{here}: lengths differ (expected {len(expected)}, observed {len(observed)}); "
                f"first extra element in {which} at [{len(shorter) + 1}]: {abbreviate(extra, 80)}")
    if te is Fn and to is Fn:
        ke, ko = set(expected.map), set(observed.map)
        if ke != ko:
            missing = sorted_values(ke - ko)
            extra = sorted_values(ko - ke)
            parts = []
            if missing:
                parts.append("missing " + ", ".join(format_value(k) for k in missing[:5]))
            if extra:
                parts.append("unexpected " + ", ".join(format_value(k) for k in extra[:5]))
            return f"{here}: domains differ: {'; '.join(parts)}"
        for k in sorted_values(ke):
            if expected.map[k] != observed.map[k]:
                sub = f"{path}.{k}" if isinstance(k, str) else f"{path}[{format_value(k)}]"
                return first_difference(expected.map[k], observed.map[k], sub)
    if te is frozenset and to is frozenset:
        missing = sorted_values(expected - observed)
        extra = sorted_values(observed - expected)
        if len(missing) == 1 and len(extra) == 1:
            return first_difference(missing[0], extra[0], f"{path}{{one element}}")
        if missing and len(missing) == len(extra):
            first = first_difference(missing[0], extra[0], f"{path}{{first of {len(missing)}}}")
            return f"{len(missing)} element(s) differ; {first}"
        parts = []
        if missing:
            parts.append(f"{len(missing)} expected element(s) not observed, first {abbreviate(missing[0], 120)}")
        if extra:
            parts.append(f"{len(extra)} observed element(s) not expected, first {abbreviate(extra[0], 120)}")
        return f"{here}: {'; '.join(parts)}"
    return f"{here}: expected {abbreviate(expected, 80)}, observed {abbreviate(observed, 80)}"


def is_large(v: Any) -> bool:
    """Values worth a diff besides their full text (containers)."""
    return isinstance(v, (tuple, frozenset, Fn)) and len(v) > 0
