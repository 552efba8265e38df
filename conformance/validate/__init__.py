"""Trace conformance: validate implementation traces against the TLA+ spec, step by step.

Modules: ``trace_reader`` (streaming NDJSON reader with precise errors), ``verdict`` (verdicts, diagnostics, reports of one
trace), ``validator`` (the step-by-step search), ``value_diff`` (readable differences of
large values), ``coverage`` (actions and disjuncts of ``Next`` exercised), ``report``
(summary table, JSON, JUnit XML), ``artifacts`` (CI copies of rejected traces),
``mutations`` (hand-mutated traces), ``runner`` (many traces, worker processes),
``corpus`` (regenerates ``traces/corpus``).
"""
