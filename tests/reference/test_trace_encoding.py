"""The trace writer's fast paths against their definitions: a message's cached text is the JSON
object of its fields in vocabulary order (each field encoded generically), and a sequence's
delta keeps exactly the longest common prefix of the two values."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.core.messages import (
    DATA,
    LEADER_CHANGE,
    MESSAGE_FIELDS,
    RECONFIG_MESSAGE_FIELDS,
    VOTERS_RECORD,
    Entry,
    Message,
)
from reference.trace.itf_encode import encode, encode_keyed_message, encode_message
from reference.trace.trace_delta import delta_text, snapshot

_ints = st.integers(min_value=-3, max_value=2**54)
_names = st.sampled_from(["", "VoteRequest", "FetchResponse", "NONE", 'odd"name', "caf\u00e9"])
_keys = st.frozensets(st.tuples(st.integers(0, 5), st.integers(-1, 9)), max_size=3)
_entries = st.builds(Entry, epoch=st.integers(0, 5), kind=st.sampled_from([DATA, LEADER_CHANGE, VOTERS_RECORD]),
                    value=st.integers(0, 9), voters=_keys)
_messages = st.builds(
    Message,
    type=_names, source=_ints, dest=_ints, clusterId=_names, epoch=_ints, leaderId=_ints,
    errorCode=_names, voteGranted=st.booleans(), lastOffsetEpoch=_ints, lastOffset=_ints,
    preferredSuccessors=st.lists(_ints, max_size=3).map(tuple), fetchOffset=_ints,
    lastFetchedEpoch=_ints, highWatermark=_ints, divergingEpoch=_ints, divergingEndOffset=_ints,
    records=st.lists(_entries, max_size=3).map(tuple), sourceDirectoryId=_ints, voterId=_ints,
    voterDirectoryId=_ints,
)


def _by_field(m: Message, names: tuple[str, ...], entry_text: str) -> dict[str, object]:
    """The message as the generic encoder writes each field, records in the given entry form."""
    out: dict[str, object] = {}
    for name in names:
        value = getattr(m, name)
        text = "[" + ", ".join(getattr(e, entry_text) for e in value) + "]" if name == "records" else encode(value)
        out[name] = json.loads(text)
    return out


_FORMS = [
    pytest.param(encode_message, MESSAGE_FIELDS, "itf", id="kip595"),
    pytest.param(encode_keyed_message, RECONFIG_MESSAGE_FIELDS, "itf_keyed", id="kip853"),
]


@pytest.mark.parametrize("encoder,names,entry_text", _FORMS)
@settings(max_examples=300, deadline=None)
@given(m=_messages)
def test_message_text_is_its_fields_in_vocabulary_order(
    encoder: Callable[[Message], str], names: tuple[str, ...], entry_text: str, m: Message
) -> None:
    parsed = json.loads(encoder(m))
    assert list(parsed) == list(names)
    assert parsed == _by_field(m, names, entry_text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=8), st.lists(st.integers(0, 3), max_size=8))
def test_sequence_delta_keeps_the_longest_common_prefix(prev: list[int], cur: list[int]) -> None:
    keep = 0
    while keep < min(len(prev), len(cur)) and prev[keep] == cur[keep]:
        keep += 1
    text = delta_text(snapshot(prev), cur)
    if prev == cur:
        assert text is None
        return
    assert text is not None
    assert json.loads(text) == {"#keep": keep, "#append": cur[keep:]}
    assert delta_text(snapshot(prev), cur, None, snapshot(cur)) == text  # a snapshot given
