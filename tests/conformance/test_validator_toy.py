"""The validator on the toy spec: verdicts, rejection steps, diagnostics, bounds, bad input."""

from __future__ import annotations

import random

import pytest

from conformance.validate.mutations import (
    causal_pairs,
    drop,
    drop_points,
    duplicate,
    edit_state,
    mutate,
    swap,
)
from conformance.validate.validator import TraceValidator, ValidatorOptions
from conformance.validate.verdict import TraceReport, Verdict
from tests.conformance.toy_traces import (
    TOY_SPEC,
    TOY_VALID,
    dump,
    event,
    header,
    init,
    msg,
    toy_lines,
    toy_loc,
)


@pytest.fixture(scope="module")
def validator() -> TraceValidator:
    return TraceValidator(TOY_SPEC)


def check(validator: TraceValidator, lines: list[dict]) -> TraceReport:
    return validator.validate(dump(lines), name="toy.ndjson")


def test_valid_trace_is_accepted_with_coverage(validator: TraceValidator) -> None:
    r = validator.validate(TOY_VALID)
    assert r.verdict is Verdict.ACCEPT, r.summary_line()
    assert r.steps == 10 and r.diagnostic is None
    assert r.max_candidates_seen == 3  # the unlogged secret stays open until Reveal
    assert r.coverage["action:Bump"] == 3 and r.coverage["action:HandlePing"] == 5
    assert r.coverage["Reveal@" + toy_loc(": Reveal(i)", "Reveal")] == 2  # the call site in Next


def test_validation_is_a_pure_function_of_the_trace(validator: TraceValidator) -> None:
    a = validator.validate(TOY_VALID)
    b = validator.validate(TOY_VALID)
    a.seconds = b.seconds = 0.0
    assert a == b


@pytest.mark.parametrize("kind", ["drop", "swap", "duplicate", "edit-state", "edit-param"])
def test_every_mutation_kind_is_rejected_at_its_step(validator: TraceValidator, kind: str) -> None:
    for seed in range(6):
        got = mutate(toy_lines(), kind, random.Random(seed), growing_actions=("Bump",))
        assert got is not None
        lines, m = got
        r = check(validator, lines)
        assert r.verdict is Verdict.REJECT, (m, r.summary_line())
        assert r.diagnostic is not None and r.diagnostic.step == m.reject_step, (m, r.summary_line())


def test_every_drop_swap_and_duplicate_position(validator: TraceValidator) -> None:
    events = [x for x in toy_lines() if x["kind"] == "event"]
    cases = [drop(toy_lines(), k, j) for k, j in drop_points(events)]
    cases += [swap(toy_lines(), k) for k in causal_pairs(events)]
    cases += [duplicate(toy_lines(), k) for k, e in enumerate(events) if e["action"] == "Bump"]
    assert len(cases) == 9
    for lines, m in cases:
        r = check(validator, lines)
        assert r.verdict is Verdict.REJECT and r.diagnostic is not None
        assert r.diagnostic.step == m.reject_step, (m, r.summary_line())


def test_edited_state_names_the_variable_with_expected_and_observed(validator: TraceValidator) -> None:
    lines, _ = edit_state(toy_lines(), 3, "counter")  # step 4: Bump of replica 1 to 2
    r = check(validator, lines)
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None
    assert (d.step, d.line) == (4, 6)
    assert [(m.variable, m.expected, m.observed) for m in d.mismatches] == [("counter", "2", "1002")]
    assert "counter match(es) no successor" in d.reason
    assert [e.step for e in d.preceding] == [1, 2, 3]
    assert d.event is not None and d.event.action == "Bump" and d.event.params == "i = 1"


def test_undelivered_message_reports_the_bound_of_next(validator: TraceValidator) -> None:
    lines = [header(), init(), event(1, 2, "HandlePing", {"m": msg(1, 2, 1)}, 1, (1,))]
    r = check(validator, lines)
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None and d.step == 1
    assert "not enabled" in d.reason
    assert [g.text for g in d.disabled] == ["m \\in messages"]
    assert d.disabled[0].location.endswith(toy_loc(": HandlePing(m)", "messages"))  # the bound of \E m in Next


def test_false_guard_of_the_action_is_explained(validator: TraceValidator) -> None:
    sent = [(msg(1, 2, n), msg(1, 3, n)) for n in (1, 2, 3, 4)]
    lines = [header(), init()] + [event(n, 1, "Bump", {"i": 1}, n, (), sent[n - 1]) for n in (1, 2, 3, 4)]
    r = check(validator, lines)
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None and d.step == 4
    texts = [g.text for g in d.disabled]
    assert any("counter[i] < MaxCount" in t for t in texts), texts
    assert any(g.location.endswith(toy_loc("counter[i] < MaxCount", "counter")) for g in d.disabled), d.disabled


def test_wrong_sent_messages_are_rejected(validator: TraceValidator) -> None:
    lines = [header(), init(), event(1, 1, "Bump", {"i": 1}, 1, (), (msg(1, 2, 1),))]  # one message missing
    r = check(validator, lines)
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None and d.step == 1
    assert [m.variable for m in d.mismatches] == ["sent"]
    assert "1 expected element(s) not observed" in d.mismatches[0].difference


def test_a_step_of_another_replica_than_the_one_logged_is_rejected(validator: TraceValidator) -> None:
    lines = [header(), init(), event(1, 2, "Bump", {"i": 1}, 0, (), (msg(1, 2, 1), msg(1, 3, 1)))]
    r = check(validator, lines)
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None and d.step == 1
    assert any("the step changes replica 1" in m.difference for m in d.mismatches), d.render()


def test_init_mismatch_is_rejected_at_step_zero(validator: TraceValidator) -> None:
    lines = toy_lines()
    lines[1]["replicas"]["2"]["counter"] = 5
    r = check(validator, lines)
    d = r.diagnostic
    assert r.verdict is Verdict.REJECT and d is not None and (d.step, d.line) == (0, 2)
    assert [(m.variable, m.expected, m.observed) for m in d.mismatches] == [("counter[2]", "0", "5")]


def test_backtracking_finds_the_branch_beyond_max_candidates() -> None:
    narrow = TraceValidator(TOY_SPEC, options=ValidatorOptions(max_candidates=1))
    r = narrow.validate(TOY_VALID)
    assert r.verdict is Verdict.ACCEPT, r.summary_line()
    assert r.steps == 10


def test_exhaustive_backtracking_still_rejects() -> None:
    narrow = TraceValidator(TOY_SPEC, options=ValidatorOptions(max_candidates=1))
    lines, _ = edit_state(toy_lines(), 2, "counter")  # Reveal shows a secret no initial state has
    r = check(narrow, lines)
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None and r.diagnostic.step == 3


def test_a_bound_that_cuts_the_search_gives_inconclusive() -> None:
    tight = TraceValidator(TOY_SPEC, options=ValidatorOptions(max_candidates=1, max_set_aside=1))
    r = tight.validate(TOY_VALID)
    assert r.verdict is Verdict.INCONCLUSIVE, r.summary_line()
    assert r.bound is not None and "no candidate left at step 3" in r.bound and "set aside" in r.bound


def test_replay_buffer_bound_gives_inconclusive() -> None:
    tight = TraceValidator(TOY_SPEC, options=ValidatorOptions(max_candidates=1, max_replay=1))
    r = tight.validate(TOY_VALID)
    assert r.verdict is Verdict.INCONCLUSIVE and r.bound is not None and "buffered" in r.bound


@pytest.mark.parametrize(
    ("mutate_lines", "line", "message"),
    [
        (lambda ls: ls[2].update(action="Teleport"), 3, "unknown action 'Teleport'"),
        (lambda ls: ls[2].update(params={"j": 1}), 3, "action Bump takes parameter(s) ['i'], the event gives ['j']"),
        (lambda ls: ls[0].update(spec="Paxos"), 1, "a trace for spec 'Paxos'"),
        (lambda ls: ls[0]["constants"].update(Quorum=2), 1, "does not declare (a trace for another spec?)"),
        (lambda ls: ls[0]["constants"].pop("MaxCount"), 1, "lacks value(s) for the spec's constant(s) ['MaxCount']"),
        (lambda ls: [r.update(epoch=0) for r in ls[1]["replicas"].values()], 2, "does not declare"),
        (lambda ls: ls[1]["replicas"].update({"4": {"counter": 0, "seen": {"#set": []}}}), 2, "replica 4 is not in the domain"),
    ],
)
def test_bad_input_names_file_and_line(validator: TraceValidator, mutate_lines: object, line: int, message: str) -> None:
    lines = toy_lines()
    mutate_lines(lines)  # type: ignore[operator]
    r = check(validator, lines)
    assert r.verdict is Verdict.ERROR, r.summary_line()
    assert r.error is not None and r.error.startswith(f"toy.ndjson:{line}:"), r.error
    assert message in r.error


def test_a_violation_before_a_malformed_line_is_reported_as_the_violation(validator: TraceValidator) -> None:
    lines, _ = edit_state(toy_lines(), 1, "counter")
    text = dump(lines)
    text[8] = "{not json\n"
    r = validator.validate(text, name="toy.ndjson")
    assert r.verdict is Verdict.REJECT and r.diagnostic is not None and r.diagnostic.step == 2


def test_constants_from_the_header_select_the_model(validator: TraceValidator) -> None:
    two = [header(replicas=(1, 2)), init((1, 2)), event(1, 1, "Bump", {"i": 1}, 1, (), (msg(1, 2, 1),))]
    assert check(validator, two).verdict is Verdict.ACCEPT
    three = [header(), init(), event(1, 1, "Bump", {"i": 1}, 1, (), (msg(1, 2, 1),))]
    assert check(validator, three).verdict is Verdict.REJECT  # with 3 replicas, Bump also sends to 3
