"""The shared network: the static check that allows it, and verdicts equal to the states'
own network (the corpus, toy specs, and a spec where sharing would be wrong)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.cfg import read_config
from conformance.validate import validator as validator_module
from conformance.validate.corpus import CORPUS_DIR, load_manifest
from conformance.validate.network import SharedNetwork
from conformance.validate.validator import TraceValidator, ValidatorOptions
from conformance.validate.verdict import TraceReport, Verdict
from tests.conformance.toy_traces import TOY_SPEC, TOY_VALID, dump, event, header, init, msg

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "KRaft.tla"
CORPUS = ROOT / CORPUS_DIR
TOGGLES = Path(__file__).parent / "fixtures" / "kraft_toggles.cfg"

# A toy protocol (the variables of fixtures/Toy.tla) whose steps only add to the network;
# {guard}, {bump} and {next} are replaced to make variants.
NET_SPEC = r"""---- MODULE {name} ----
EXTENDS Naturals, FiniteSets
\* @type: Set(Int);
CONSTANT Replicas
\* @type: Int;
CONSTANT MaxCount
\* @type: Set(Int);
CONSTANT Secrets
\* @type: Int -> Int;
VARIABLE counter
\* @type: Int -> Set(Int);
VARIABLE seen
\* @type: Set({{ type: Str, source: Int, dest: Int, n: Int }});
VARIABLE messages
\* @type: Int;
VARIABLE secret
vars == <<counter, seen, messages, secret>>
Msg(s, d, n) == [type |-> "Ping", source |-> s, dest |-> d, n |-> n]
Send(m) == messages' = messages \cup {{m}}
Init ==
    /\ counter = [i \in Replicas |-> 0]
    /\ seen = [i \in Replicas |-> {{}}]
    /\ messages = {{}}
    /\ secret \in Secrets
Bump(i) ==
    /\ counter[i] < MaxCount
    /\ counter' = [counter EXCEPT ![i] = @ + 1]
    /\ {bump}
    /\ UNCHANGED <<seen, secret>>
HandlePing(m) ==
    /\ m.type = "Ping"
    /\ IF m.n > counter[m.dest]
          THEN /\ counter' = [counter EXCEPT ![m.dest] = m.n]
               /\ seen' = [seen EXCEPT ![m.dest] = @ \cup {{m.source}}]
          ELSE UNCHANGED <<counter, seen>>
    /\ UNCHANGED <<messages, secret>>
Reveal(i) ==
    /\ {guard}
    /\ \/ /\ counter[i] = 0
          /\ counter' = [counter EXCEPT ![i] = secret]
          /\ UNCHANGED <<seen, messages, secret>>
       \/ /\ counter[i] > 0
          /\ seen' = [seen EXCEPT ![i] = {{}}]
          /\ UNCHANGED <<counter, messages, secret>>
Next ==
    \/ \E i \in Replicas : Bump(i)
    \/ \E m \in {next} : HandlePing(m)
    \/ \E i \in Replicas : Reveal(i)
====
"""
BUMP = r"messages' = messages \cup {Msg(i, j, counter[i] + 1) : j \in Replicas \ {i}}"


def net_spec(tmp: Path, *, guard: str = "TRUE", bump: str = BUMP, next_domain: str = "messages",
             name: str = "Toy") -> Path:
    path = tmp / f"{name}.tla"
    path.write_text(NET_SPEC.format(name=name, guard=guard, bump=bump, next=next_domain))
    return path


def refusal(tmp: Path, **variant: str) -> str | None:
    return TraceValidator(net_spec(tmp, **variant)).network_refusal()


def test_the_kraft_spec_only_adds_to_its_network() -> None:
    assert TraceValidator(SPEC).network_refusal() is None


def test_a_spec_that_only_adds_to_its_network_is_shared(tmp_path: Path) -> None:
    assert refusal(tmp_path) is None
    # sends through an operator, in both branches of an IF, through a LET: still one per way
    assert refusal(tmp_path, bump=r"IF i = 1 THEN Send(Msg(i, 2, 1)) ELSE Send(Msg(i, 1, 1))") is None
    assert refusal(tmp_path, bump=r"LET Out(k) == Send(Msg(i, k, 1)) IN \/ Out(1) \/ Out(2)") is None
    assert refusal(tmp_path, bump=r"CASE i = 1 -> Send(Msg(i, 2, 1)) [] OTHER -> Send(Msg(i, 1, 1))") is None


@pytest.mark.parametrize(("variant", "reason"), [
    ({"guard": r"\A m \in messages : m.dest # i"}, "reads messages"),
    ({"guard": r"Cardinality(messages) < 3"}, "reads messages"),
    ({"guard": r"vars # <<>>"}, "reads messages"),
    ({"bump": r"messages' = messages \ {Msg(i, 1, 1)}"}, "other than messages \\cup"),
    ({"bump": r"messages' = {Msg(i, 1, 1)} \cup messages"}, "other than messages \\cup"),
    ({"bump": r"messages' \in SUBSET messages"}, "outside messages'"),
    ({"bump": r"Send(Msg(i, 1, 1)) /\ Send(Msg(i, 2, 1))"}, "twice"),
    ({"bump": r"LET Out(k) == Send(Msg(i, k, 1)) IN Out(1) /\ Out(2)"}, "twice"),
    ({"bump": r"Send(Msg(i, 1, 1)) /\ UNCHANGED vars"}, "twice"),
    ({"bump": r"\A k \in {1, 2} : Send(Msg(i, k, 1))"}, "twice"),
    ({"bump": r"(CASE i = 1 -> Send(Msg(i, 2, 1)) [] OTHER -> TRUE) /\ Send(Msg(i, 1, 1))"}, "twice"),
    ({"next_domain": r"{x \in messages : x.n > 0}"}, "reads messages"),
])
def test_any_other_use_of_the_network_keeps_it_in_the_states(tmp_path: Path, variant: dict[str, str],
                                                             reason: str) -> None:
    why = refusal(tmp_path, **variant)
    assert why is not None and reason in why, why
    assert "Toy.tla:" in why  # located


def test_the_toy_spec_reads_its_network_in_a_guard() -> None:
    why = TraceValidator(TOY_SPEC).network_refusal()
    assert why is not None and "Toy.tla:40:14: a step reads messages" in why, why


def _same(a: TraceReport, b: TraceReport) -> None:
    assert a.verdict is not Verdict.ERROR or b.verdict is Verdict.ERROR, a.error
    assert (a.verdict, a.steps, a.error, a.bound) == (b.verdict, b.steps, b.error, b.bound), (a.summary_line(), b.summary_line())
    assert (a.diagnostic is None) == (b.diagnostic is None)
    if a.diagnostic is not None and b.diagnostic is not None:
        assert a.diagnostic.reason == b.diagnostic.reason
        assert (a.diagnostic.step, a.diagnostic.line, a.diagnostic.candidates) == \
            (b.diagnostic.step, b.diagnostic.line, b.diagnostic.candidates)
        assert a.diagnostic.mismatches == b.diagnostic.mismatches
        assert a.diagnostic.disabled == b.diagnostic.disabled


def _toy_trace(*events: dict) -> list[str]:
    return dump([header(), init(), *events])


PINGS = (msg(1, 2, 1), msg(1, 3, 1))


@pytest.mark.parametrize("events", [
    # valid: a ping, handled; a re-sent message (already in the network) is fine
    [event(1, 1, "Bump", {"i": 1}, 1, sent=PINGS), event(2, 2, "HandlePing", {"m": msg(1, 2, 1)}, 1, seen=(1,))],
    [event(1, 1, "Bump", {"i": 1}, 1, sent=PINGS), event(2, 2, "Reveal", {"i": 2}, 1),
     event(3, 2, "Bump", {"i": 2}, 2, sent=(msg(2, 1, 2), msg(2, 3, 2)))],
    # a message handled before it is sent; sent messages missing, extra or different
    [event(1, 2, "HandlePing", {"m": msg(1, 2, 1)}, 1, seen=(1,))],
    [event(1, 1, "Bump", {"i": 1}, 1, sent=PINGS[:1])],
    [event(1, 1, "Bump", {"i": 1}, 1, sent=(*PINGS, msg(1, 1, 1)))],
    [event(1, 1, "Bump", {"i": 1}, 1, sent=(msg(1, 2, 1), msg(1, 3, 2)))],
    [event(1, 1, "Reveal", {"i": 1}, 2, sent=PINGS)],
    # a message handled at a step before the one that sends it (backtracking replays)
    [event(1, 1, "Reveal", {"i": 1}, 2), event(2, 3, "HandlePing", {"m": msg(1, 3, 3)}, 3, seen=(1,)),
     event(3, 1, "Bump", {"i": 1}, 3, sent=(msg(1, 2, 3), msg(1, 3, 3)))],
], ids=["handled", "re-sent", "handled-before-sent", "missing-send", "extra-send", "other-send",
        "send-without-sending", "handled-early"])
def test_shared_and_state_networks_agree_on_toy_traces(tmp_path: Path, events: list[dict]) -> None:
    spec = net_spec(tmp_path)
    shared = TraceValidator(spec)
    assert shared.network_refusal() is None
    own = TraceValidator(spec, options=ValidatorOptions(share_network=False))
    trace = _toy_trace(*events)
    _same(shared.validate(trace, name="t.ndjson"), own.validate(trace, name="t.ndjson"))


@pytest.mark.parametrize(("second", "verdict"), [((msg(1, 2, 1),), Verdict.ACCEPT), ((), Verdict.ACCEPT),
                                                  ((msg(1, 2, 2),), Verdict.REJECT)])
def test_a_message_sent_again_may_be_logged_or_not(tmp_path: Path, second: tuple[dict, ...],
                                                   verdict: Verdict) -> None:
    """The spec sends the same message twice; the second time it is already in the network."""
    spec = net_spec(tmp_path, bump="Send(Msg(i, 2, 1))")
    trace = _toy_trace(event(1, 1, "Bump", {"i": 1}, 1, sent=(msg(1, 2, 1),)),
                       event(2, 1, "Bump", {"i": 1}, 2, sent=second))
    shared, own = TraceValidator(spec), TraceValidator(spec, options=ValidatorOptions(share_network=False))
    assert shared.network_refusal() is None
    assert shared.validate(trace).verdict is verdict
    _same(shared.validate(trace), own.validate(trace))


def test_the_static_check_is_what_keeps_a_guard_on_the_network_exact(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Reveal(i) is enabled only while no message is addressed to i: after Bump(1), Reveal(2)
    is not a step of the spec. Shared on the empty set, the guard would hold."""
    spec = net_spec(tmp_path, guard=r"\A m \in messages : m.dest # i")
    trace = _toy_trace(event(1, 1, "Bump", {"i": 1}, 1, sent=PINGS), event(2, 2, "Reveal", {"i": 2}, 2))
    assert TraceValidator(spec).validate(trace).verdict is Verdict.REJECT
    monkeypatch.setattr(validator_module, "sharing_refusal", lambda *a, **k: None)  # the check switched off
    assert TraceValidator(spec).validate(trace).verdict is Verdict.ACCEPT  # a wrong answer


def test_the_hand_written_toy_trace_is_accepted_either_way(tmp_path: Path) -> None:
    lines = TOY_VALID.read_text().splitlines(keepends=True)
    spec = net_spec(tmp_path, name="Toy")
    assert TraceValidator(spec).validate(lines).verdict is Verdict.ACCEPT


def test_shared_network_membership_follows_the_steps() -> None:
    net = SharedNetwork(frozenset({"a"}))
    net.record(1, ["b"])
    net.record(2, ["b", "c"])
    net.record(1, ["z"])  # a replayed step adds nothing
    assert [net.contains(m, 0) for m in "abcz"] == [True, False, False, False]
    assert [net.contains(m, 1) for m in "abcz"] == [True, True, False, False]
    assert net.as_set(2) == frozenset("abc")
    assert net.new_messages(frozenset("bcd"), 1) == frozenset("cd")
    assert net.grows_by(frozenset("cdb"), frozenset("cd"), 1)
    assert not net.grows_by(frozenset("cdz"), frozenset("cd"), 1)
    assert not net.grows_by(frozenset("c"), frozenset("cd"), 1)


CORPUS_ENTRIES = load_manifest(CORPUS)


@pytest.fixture(scope="module")
def both() -> tuple[TraceValidator, TraceValidator]:
    constants = read_config(TOGGLES).constants
    return (TraceValidator(SPEC, constants=constants),
            TraceValidator(SPEC, constants=constants, options=ValidatorOptions(share_network=False)))


@pytest.mark.parametrize("entry", CORPUS_ENTRIES, ids=[e.file for e in CORPUS_ENTRIES])
def test_shared_and_state_networks_agree_on_the_corpus(both: tuple[TraceValidator, TraceValidator], entry) -> None:
    shared, own = both
    _same(shared.validate(CORPUS / entry.file), own.validate(CORPUS / entry.file))
