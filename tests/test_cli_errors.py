"""User errors at the command line: one line naming the culprit, exit status 2, no output written.

Each test plays a user mistake (a malformed SWF line, a missing file, a job larger than --nodes, an
unknown name, a bad --hp key, a missing claims table) through ``schedrl.cli.main``.
"""

from __future__ import annotations

import argparse

import pytest

from schedrl.cli import build_parser, main

SWF = """; MaxNodes: 64
1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 10 0 50 32 -1 -1 32 200 -1 1 1 1 1 1 1 -1 -1
"""


def _one_error_line(capsys, *needles: str) -> str:
    """The captured stderr is exactly one 'schedrl ...: error: ...' line holding every needle."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and ": error: " in lines[0], err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    return path


def _subparsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _subparsers(sub)


def test_every_help_text_renders_without_doubled_percent():
    # descriptions are not %-formatted by argparse, so a '%%' there prints literally
    parsers = list(_subparsers(build_parser()))
    assert len(parsers) > 20
    for parser in parsers:
        assert "%%" not in parser.format_help(), parser.prog


@pytest.mark.parametrize("command", [["simulate", "--nodes", "64"], ["workload", "info"]])
def test_malformed_swf_line_is_named_by_file_and_line(tmp_path, capsys, command):
    bad = tmp_path / "bad.swf"
    bad.write_text(SWF.replace("2 10 0 50", "2 10 0 abc"))
    out = tmp_path / "out"
    argv = command[:1] + ([*command[1:2], str(bad), *command[2:]] if command[0] == "workload"
                          else [str(bad), *command[1:], "--schedule", str(out / "s.csv"),
                                "--metrics", str(out / "m.json")])
    assert main(argv) == 2
    _one_error_line(capsys, f"{bad}:3:")
    assert not out.exists()


@pytest.mark.parametrize("command", [["simulate"], ["workload", "info"]])
def test_missing_trace_is_named(tmp_path, capsys, command):
    assert main([*command, str(tmp_path / "nope.swf")]) == 2
    _one_error_line(capsys, "nope.swf: no such file")


def test_job_larger_than_nodes_stops_simulate(trace, tmp_path, capsys):
    sched, metrics = tmp_path / "s.csv", tmp_path / "m.json"
    out = ["--schedule", str(sched), "--metrics", str(metrics)]
    assert main(["simulate", str(trace), "--nodes", "8", *out]) == 2
    _one_error_line(capsys, "job 2", "32", "8")
    assert not sched.exists() and not metrics.exists()
    # dropping it is still possible, on request; without --nodes the header's size is used
    assert main(["simulate", str(trace), "--nodes", "8", "--oversize", "drop", *out]) == 0
    assert '"jobs": 1' in capsys.readouterr().out
    assert main(["simulate", str(trace), *out]) == 0
    assert '"jobs": 2' in capsys.readouterr().out


def test_job_larger_than_nodes_stops_heuristics_run(trace, tmp_path, capsys):
    out = tmp_path / "h.csv"
    assert main(["heuristics", "run", str(trace), "--nodes", "8", "--out", str(out)]) == 2
    _one_error_line(capsys, "job 2")
    assert not out.exists()


def test_nonpositive_nodes_names_the_option(trace, capsys):
    assert main(["simulate", str(trace), "--nodes", "0"]) == 2
    _one_error_line(capsys, "--nodes")


@pytest.mark.parametrize("argv, needle", [
    (["simulate", "T", "--policy", "nope"], "--policy"),
    (["simulate", "T", "--backfill", "nope"], "--backfill"),
])
def test_unknown_choice_is_a_usage_error(trace, capsys, argv, needle):
    with pytest.raises(SystemExit) as exc:
        main([str(trace) if a == "T" else a for a in argv])
    assert exc.value.code == 2
    _one_error_line(capsys, needle, "nope")


TRAIN = ["train", "--env", "schedrl/DeepRM-v0", "--steps", "10", "--seed", "0"]


@pytest.mark.parametrize("extra, needles", [
    (["--algo", "nope"], ["unknown algorithm 'nope'"]),
    (["--algo", "a2c", "--hp", "bogus_key=3"], ["bogus_key"]),
    (["--algo", "a2c", "--hp", "bogus_key"], ["--hp", "KEY=VALUE"]),
    # the plain 'schedrl/...' id resolves (no 'Namespace schedrl not found'), the bad value is named
    (["--algo", "a2c", "--env-kwarg", "obs_mode=nope"], ["obs_mode", "nope"]),
    (["--algo", "a2c", "--env-kwarg", "encoder_typo=1"], ["encoder_typo"]),
    (["--algo", "dqn", "--env-kwarg", "action_mode=multibinary"], ["dqn", "MultiBinary"]),
])
def test_train_user_errors_write_no_run_folder(tmp_path, capsys, extra, needles):
    run_dir = tmp_path / "run"
    assert main([*TRAIN, "--run-dir", str(run_dir), *extra]) == 2
    _one_error_line(capsys, *needles)
    assert not run_dir.exists()  # a corrected rerun is not refused as 'a different run'


def test_unknown_env_id_and_encoder(tmp_path, trace, capsys):
    run_dir = tmp_path / "run"
    assert main(["train", "--env", "schedrl/Nope-v0", "--algo", "ppo", "--steps", "10", "--seed", "0",
                 "--run-dir", str(run_dir)]) == 2
    _one_error_line(capsys, "schedrl/Nope-v0")
    assert main(["train", "--env", "schedrl/HPC-v0", "--env-kwarg", f"jobs={trace}",
                 "--env-kwarg", "encoder=nope", "--algo", "ppo", "--steps", "10", "--seed", "0",
                 "--run-dir", str(run_dir)]) == 2
    _one_error_line(capsys, "unknown encoder 'nope'")
    assert not run_dir.exists()


def test_report_missing_or_bad_inputs(tmp_path, capsys):
    out = tmp_path / "x.md"
    assert main(["report", "--claims", str(tmp_path / "missing.csv"), "--out", str(out)]) == 2
    _one_error_line(capsys, "missing.csv: no such file")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["report", "--claims", str(empty), "--out", str(out)]) == 2
    _one_error_line(capsys, "empty.csv")
    assert main(["report", "--sections", str(tmp_path / "figures" / "sem" / "t.md"), "--out", str(out)]) == 2
    _one_error_line(capsys, "t.md: no such file")
    loose = tmp_path / "loose.md"
    loose.write_text("# a section\n")
    assert main(["report", "--sections", str(loose), "--out", str(out)]) == 2
    _one_error_line(capsys, "loose.md", "no paper")
    assert not out.exists()


def test_report_with_valid_inputs_still_works(tmp_path):
    from schedrl.report.claims import write_claims

    claims = tmp_path / "results" / "sem" / "claims.csv"
    write_claims(claims, [{"paper": "sem", "claim_id": "c1", "claim": "x", "paper_value": "1",
                           "ours": "1", "verdict": "reproduced", "note": ""}])
    section = tmp_path / "figures" / "sem" / "table2.md"
    section.parent.mkdir(parents=True)
    section.write_text("| a |\n| --- |\n| 1 |\n")
    out = tmp_path / "r.md"
    assert main(["report", "--claims", str(claims), "--sections", str(section), "--out", str(out)]) == 0
    text = out.read_text()
    assert "| c1 | x | 1 | 1 | reproduced |" in text and "| a |" in text


def test_config_typo_is_named(tmp_path, capsys):
    from pathlib import Path

    smoke = (Path(__file__).resolve().parents[1] / "config" / "smoke.yaml").read_text()
    assert "\n  stand_in_jobs:" in smoke
    typo = tmp_path / "typo.yaml"
    typo.write_text(smoke.replace("\n  stand_in_jobs:", "\n  stand_in_jobz:", 1))
    assert main(["config", str(typo)]) == 2
    _one_error_line(capsys, "typo.yaml", "workloads.stand_in_jobz")


def test_workload_info_prints_strict_json(tmp_path, capsys):
    import json

    one = tmp_path / "one.swf"
    one.write_text(SWF.splitlines()[0] + "\n" + SWF.splitlines()[1] + "\n")  # a single job: zero span
    assert main(["workload", "info", str(one)]) == 0

    def no_constants(name):
        raise AssertionError(f"{name} is not JSON")

    info = json.loads(capsys.readouterr().out, parse_constant=no_constants)
    assert info["jobs"] == 1 and info["offered_load"] is None


def test_simulate_sizes_the_machine_like_the_cleaning(tmp_path):
    """SWF sizes count processors: a header with MaxNodes 2 and MaxProcs 16 is a 16-processor machine."""
    import json

    trace = tmp_path / "procs.swf"
    trace.write_text("; MaxNodes: 2\n; MaxProcs: 16\n"
                     "1 0 -1 100 8 -1 -1 8 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                     "2 10 -1 100 16 -1 -1 16 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    metrics = tmp_path / "m.json"
    assert main(["simulate", str(trace), "--policy", "fcfs", "--backfill", "none",
                 "--schedule", str(tmp_path / "s.csv"), "--metrics", str(metrics)]) == 0
    result = json.loads(metrics.read_text())
    assert result["nodes"] == 16
    import pandas as pd

    schedule = pd.read_csv(tmp_path / "s.csv").set_index("job_id")
    assert schedule.loc[1, "start_time"] == 0
    assert schedule.loc[2, "start_time"] == 100  # all 16 processors: waits for job 1 to end
