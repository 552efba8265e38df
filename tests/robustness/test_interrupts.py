"""Ctrl-C (SIGINT) loses no finished work: ``validate`` (any ``--jobs``) stops at once and
reports the traces done (table, JSON and JUnit marked interrupted, exit 130); ``check``
prints its partial statistics (JSON with ``--json``); ``simulate`` keeps every finished trace."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reference.sim.simulator import SimConfig, run_seed

pytestmark = pytest.mark.slow  # each case waits several seconds before its SIGINT

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _start(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "conformance", *argv], cwd=ROOT, env=ENV, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _interrupt(proc: subprocess.Popen[str], after: float) -> tuple[int, str, str, float]:
    time.sleep(after)
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err, time.monotonic() - sent


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four short traces (named first) and six long ones (long enough that validating them
    takes well over the seconds a case waits before its SIGINT, with two jobs too)."""
    out = tmp_path_factory.mktemp("traces")
    for seed in range(1, 5):
        path = run_seed(SimConfig(steps=20, out_dir=out), seed).trace_path
        assert path is not None
        path.rename(out / f"a-short-{seed}.ndjson")
    for seed in range(1, 7):
        path = run_seed(SimConfig(steps=30_000, out_dir=out), seed).trace_path
        assert path is not None
        path.rename(out / f"b-long-{seed}.ndjson")
    return out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_validate_stops_at_once_and_reports_the_traces_done(jobs: str, traces: Path, tmp_path: Path) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    proc = _start("validate", str(traces), "--jobs", jobs, "--no-progress", "--json", str(report), "--junit", str(junit))
    code, out, err, took = _interrupt(proc, 7)
    assert code == 130, err
    assert took < 5, took  # not after the queued traces
    assert "Traceback" not in err and "interrupted" in err
    doc = json.loads(report.read_text())
    assert doc["interrupted"] is True and doc["exit_code"] == 130
    done = [t["file"] for t in doc["traces"]]
    assert 4 <= len(done) < 10 and doc["not_validated"] == 10 - len(done)
    assert all(t["verdict"] == "ACCEPT" for t in doc["traces"])
    assert any("a-short-1" in f for f in done)
    assert "Trace validation" in out and f"{len(done)} traces" in out
    root = ET.parse(junit).getroot()
    assert root.find("testsuite/properties/property[@name='interrupted']") is not None
    assert len(root.findall("testsuite/testcase")) == len(done)


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_check_prints_partial_statistics(extra: list[str]) -> None:
    proc = _start("check", "spec/MC_KRaft.tla", "--config", "spec/MC_KRaft_small.cfg", *extra)
    code, out, err, took = _interrupt(proc, 9)
    assert code == 130 and took < 5 and "Traceback" not in err
    if extra:
        doc = json.loads(out)
        assert doc["verdict"] == "interrupted" and doc["distinct_states"] > 0 and doc["states_generated"] > 0
    else:
        assert "Exploration stopped: interrupted" in out and "distinct states found" in out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_keeps_every_finished_trace(jobs: str, tmp_path: Path) -> None:
    from conformance.validate.trace_reader import TraceStream

    out = tmp_path / "sim"
    proc = _start("simulate", "--seeds", "1-400", "--steps", "1500", "--out", str(out), "--jobs", jobs)
    code, summary, err, took = _interrupt(proc, 8)
    assert code == 130 and took < 5 and "Traceback" not in err
    finished = int(err.split("interrupted: ")[1].split(" of 400")[0])
    assert finished >= 1 and re.search(rf"runs\s+│\s+{finished}\s", summary), summary  # the table covers them
    complete = []
    for f in sorted(out.glob("*.ndjson")):  # every file left is readable: finished, or a prefix
        stream = TraceStream(f)
        steps = sum(1 for _ in stream.events())
        if stream.end is not None:
            assert steps == 1500
            complete.append(f)
    assert len(complete) >= finished
