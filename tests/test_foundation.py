"""The project's frame: pins agree, CLI help works, config typos are caught, the DAG dry-runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from schedrl.cli import build_parser, main
from schedrl.config import load_config, validate_config
from schedrl.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
CONFIGS = ["config/config.yaml", "config/smoke.yaml", "config/paper.yaml"]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject_pins() -> dict[str, str]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    specs = list(data["project"]["dependencies"])
    for extra in data["project"]["optional-dependencies"].values():
        specs += list(extra)
    pins = {}
    for spec in specs:
        name, version = spec.split("==")
        pins[_norm(name)] = version
    return pins


def _conda_pins() -> dict[str, str]:
    env = yaml.safe_load((REPO / "envs" / "schedrl.yaml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for spec in dep["pip"]:
                name, version = spec.split("==")
                pins[_norm(name)] = version
        elif "=" in dep:
            name, version = dep.split("=", 1)
            pins[_norm(name)] = version.lstrip("=")
    return pins


def test_every_dependency_is_pinned_exactly():
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    extras = [s for group in data["project"]["optional-dependencies"].values() for s in group]
    for spec in data["project"]["dependencies"] + extras:
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][A-Za-z0-9.]*", spec), spec


def test_conda_env_and_pyproject_agree():
    py, conda = _pyproject_pins(), _conda_pins()
    conda.pop("python", None)
    assert set(py) == set(conda), f"only in pyproject: {set(py) - set(conda)}; only in conda: {set(conda) - set(py)}"
    for name, version in py.items():
        assert conda[name] == version, f"{name}: pyproject {version} vs envs/schedrl.yaml {conda[name]}"


def test_github_workflow_parses_and_uses_conda_env():
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    steps = wf["jobs"]["test"]["steps"]
    conda = [s for s in steps if "setup-miniconda" in s.get("uses", "")]
    assert conda and conda[0]["with"]["environment-file"] == "envs/schedrl.yaml"
    runs = " ".join(s.get("run", "") for s in steps)
    assert "pytest" in runs and "config/smoke.yaml" in runs


def test_help_lists_every_subcommand(capsys):
    parser = build_parser()
    commands = sorted(parser._subparsers._group_actions[0].choices)
    assert {"config", "report"} <= set(commands)
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in commands:
        assert name in out
    for name in commands:
        with pytest.raises(SystemExit) as exc:
            main([name, "--help"])
        assert exc.value.code == 0, name
        assert "usage:" in capsys.readouterr().out


def test_usage_error_is_one_line_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-command" in err[0]


@pytest.mark.parametrize("path", CONFIGS)
def test_shipped_configs_validate(path):
    load_config(REPO / path)


def test_misspelt_key_is_named(tmp_path, capsys):
    config = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    config["sede"] = config.pop("seed")
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    assert main(["config", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "'sede'" in err[0] and str(bad) in err[0]


def test_nested_typo_is_named_with_its_path():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["traces"]["dir"] = ["x"]
    with pytest.raises(ConfigError, match=r"'traces\.dir'"):
        validate_config(config)


def test_missing_config_file_is_one_line(tmp_path, capsys):
    assert main(["config", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml: no such file" in capsys.readouterr().err


def _snakemake(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    exe = shutil.which("snakemake") or str(Path(sys.executable).parent / "snakemake")
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


# The dry runs below force every job (-F, or --forcerun of the rule they read): the checkout's
# results/ may hold an earlier `make test`'s smoke outputs, and a dry run would then plan (and check)
# only what is out of date, or nothing.
@pytest.mark.parametrize("path", CONFIGS)
def test_dag_dry_runs(path):
    proc = _snakemake("all", "-n", "-F", "--quiet", "rules", "--configfile", path)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("paper", ["deeprm", "mdp", "mrsch", "runtime", "sem"])
def test_whole_dag_dry_runs_with_a_tuned_overlay(paper):
    """``all`` over the paper's budget with a tuned recipe's overlay (which trains its own agent alone):
    the figures whose agents the overlay does not train are left out, not asked for (deeprm's fig5_5
    asked for A2C learning curves before 2026-12-06)."""
    proc = _snakemake("all", "-n", "-F", "--quiet", "rules", "--configfile", "config/paper-budget.yaml",
                      f"config/tuned/{paper}.yml")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_dag_dry_runs_with_slurm_profile():
    proc = _snakemake("all", "-n", "-F", "--quiet", "rules", "--profile", "workflow/profiles/slurm",
                      "--configfile", "config/paper.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_snakemake_rejects_misspelt_key_in_one_line(tmp_path):
    bad = tmp_path / "typo.yaml"
    bad.write_text("scale: smoke\nsede: 1\n")
    proc = _snakemake("all", "-n", "--configfile", str(bad))
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if "sede" in ln]
    assert lines and lines[0].startswith("schedrl: ")


def test_atomic_write_leaves_no_temp_and_normal_permissions(tmp_path):
    import os

    from schedrl.io import atomic_path, write_text

    target = tmp_path / "out" / "x.txt"
    write_text(target, "hello\n")
    assert target.read_text() == "hello\n"
    umask = os.umask(0)
    os.umask(umask)
    assert (target.stat().st_mode & 0o777) == (0o666 & ~umask)
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "y.txt") as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_link_or_copy_is_a_second_name_that_outlives_a_replaced_source(tmp_path):
    from schedrl.io import link_or_copy, write_text

    src, dst = tmp_path / "model.zip", tmp_path / "ckpt" / "model.zip"
    write_text(src, "first")
    write_text(dst, "stale")  # replaced, as a resume's copy would be
    link_or_copy(src, dst)
    assert dst.read_text() == "first" and dst.stat().st_ino == src.stat().st_ino
    write_text(src, "second")  # writers rename a new file into place: the second name keeps the old one
    assert dst.read_text() == "first"
    assert sorted(p.name for p in dst.parent.iterdir()) == ["model.zip"]


def test_write_json_is_valid_json_with_non_finite_values(tmp_path):
    import json

    import numpy as np

    from schedrl.io import write_json

    path = tmp_path / "m.json"
    write_json(path, {"a": float("nan"), "b": [np.float64("inf"), 1.5], "c": np.int64(3), "d": np.array([np.nan, 2.0])})
    assert json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"invalid JSON constant {c}")) == {
        "a": None, "b": [None, 1.5], "c": 3, "d": [None, 2.0]}


def test_verdict_tolerance_bands():
    from schedrl.protocol import verdict

    assert verdict(1.05, 1.0, rel_tol=0.1) == "reproduced"
    assert verdict(1.15, 1.0, rel_tol=0.1) == "partly reproduced"
    assert verdict(0.75, 1.0, rel_tol=0.1) == "not reproduced"
    assert verdict(0.02, 0.0, abs_tol=0.05) == "reproduced"  # a zero paper value needs abs_tol


def test_report_summary_counts_verdicts_per_paper(tmp_path):
    from schedrl.papers import titles
    from schedrl.report.claims import write_claims
    from schedrl.report.render import render_report

    rows = [{"paper": "runtime", "claim_id": f"c{i}", "claim": "x", "paper_value": "1", "ours": "1",
             "verdict": v, "note": ""} for i, v in enumerate(["reproduced", "reproduced", "not reproduced"])]
    path = tmp_path / "claims.csv"
    write_claims(path, rows)
    text, claims = render_report([path], [], "default", titles())
    assert len(claims) == 3
    summary = next(line for line in text.splitlines() if line.startswith("| [runtime](#paper-runtime) |"))
    assert summary.split("|")[3:9] == [" 3 ", " 2 ", " 0 ", " 1 ", " 0 ", " 0 "]  # claims, R, P, N, C, not converged
    assert "Smoke scale" not in text
    assert "Smoke scale" in render_report([path], [], "smoke", titles())[0]


def test_report_shows_no_learning_references_and_fingerprints(tmp_path):
    """A claim that random play also reproduces is counted as such; a paper's fingerprints.csv is
    rendered under it, with the agent that plays as a fixed slot named."""
    from schedrl.papers import titles
    from schedrl.report.claims import reference_fields, write_claims
    from schedrl.report.render import render_report

    rows = [{"paper": "runtime", "claim_id": "c0", "claim": "RL beats SJF", "paper_value": "1", "ours": "1",
             "verdict": "reproduced", "note": "", "converged": "yes",
             **reference_fields("reproduced", "reproduced", "not reproduced", "")},
            {"paper": "runtime", "claim_id": "c1", "claim": "RL beats FCFS", "paper_value": "1", "ours": "1",
             "verdict": "reproduced", "note": "", "converged": "yes",
             **reference_fields("reproduced", "not reproduced", "not reproduced", "plays as slot 1 (100% of 9)")}]
    assert [r["uninformative"] for r in rows] == ["yes", "no"]
    claims_path = tmp_path / "claims.csv"
    write_claims(claims_path, rows)
    fp_dir = tmp_path / "runtime"
    fp_dir.mkdir()
    (fp_dir / "fingerprints.csv").write_text("agent,contested,chance,agree_fcfs,top_slot,top_slot_share,plays_as\n"
                                             "PPO NN1 seed 0,9,0.4,0.0,1,1.0,slot 1\n")
    text, _ = render_report([claims_path], [], "default", titles(), fingerprint_files=[fp_dir / "fingerprints.csv"])
    summary = next(line for line in text.splitlines() if line.startswith("| [runtime](#paper-runtime) |"))
    assert summary.rstrip().endswith("| 1 |")  # random play too
    assert "What the agents learned" in text and "| PPO NN1 seed 0 | 9 |" in text
    assert "random play" in text and "plays as slot 1 (100% of 9)" in text


def test_every_missed_claim_has_one_cause_and_the_report_groups_them(tmp_path):
    from schedrl.papers import titles
    from schedrl.report.claims import CAUSES, read_claims, reference_fields, write_claims
    from schedrl.report.convergence import NOT_CONVERGED
    from schedrl.report.render import render_report

    base = {"paper": "mdp", "claim": "x", "paper_value": "1", "ours": "2", "note": "short"}
    rows = [{**base, "claim_id": "ok", "verdict": "reproduced"},
            {**base, "claim_id": "moving", "verdict": "not reproduced", "converged": NOT_CONVERGED},
            {**base, "claim_id": "chance", "verdict": "partly reproduced",
             **reference_fields("partly reproduced", "partly reproduced", "not reproduced")},
            {**base, "claim_id": "fcfs", "verdict": "not reproduced",
             **reference_fields("not reproduced", "not reproduced", "", "plays as FCFS (99% of 80)")},
            {**base, "claim_id": "told", "verdict": "not reproduced", "cause": "process", "converged": NOT_CONVERGED},
            {**base, "claim_id": "na", "verdict": "not comparable"},
            {**base, "claim_id": "against", "verdict": "not reproduced", "note": "A first sentence. " + "x " * 200}]
    path = tmp_path / "claims.csv"
    write_claims(path, rows)
    got = dict(zip(read_claims(path)["claim_id"], read_claims(path)["cause"]))
    assert got == {"ok": "", "moving": "not converged", "chance": "uninformative", "fcfs": "agent = heuristic",
                   "told": "process", "na": "paper value not comparable", "against": "disagrees"}
    assert set(got.values()) - {""} <= set(CAUSES)
    text, _ = render_report([path], [], "default", titles())
    assert "### Why claims are not reproduced (6 of 7)" in text
    assert "* **process** (1): told (not reproduced)" in text
    assert "why: disagrees" in text and "<details><summary>A first sentence.</summary>" in text
    with pytest.raises(ValueError, match="unknown cause"):
        write_claims(tmp_path / "bad.csv", [{**base, "claim_id": "b", "verdict": "not reproduced", "cause": "bad luck"}])


def test_report_reads_every_papers_fingerprints():
    """Every paper with trained agents hands its fingerprints.csv to the report rule."""
    proc = _snakemake("report", "-n", "-p", "--nolock", "--forcerun", "reproduction_report",
                      "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0, proc.stderr[-2000:]
    command = next(line for line in proc.stdout.splitlines() if "schedrl report --scale" in line)
    args = command.split("--fingerprints", 1)[1].split("--out", 1)[0].split()
    assert sorted(args) == sorted(f"results/{p}/fingerprints.csv" for p in ("sem", "mdp", "deeprm", "mrsch", "runtime"))
