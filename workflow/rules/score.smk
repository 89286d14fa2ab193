# `schedrl score` in the DAG: the policies of config `score.policies` (name: module:callable,
# path/file.py:callable, a registered heuristic, an SB3 .zip or a run folder) scored on each paper's
# held-out workloads beside its baselines and trained agents (src/schedrl/score/).
#   results/score/leaderboard.{csv,md}, results/score/index.html   the leaderboards
#   figures/score/leaderboard.md                                    the report's section
import json

from schedrl.score.suites import PAPERS as SCORE_PAPERS, agent_inputs, workload_inputs

SCORE = cfg("score", default={}) or {}
SCORE_POLICIES = SCORE.get("policies") or {}
SCORE_ON = [p for p in SCORE.get("papers", SCORE_PAPERS) if p in config]
TARGETS.setdefault("score", [])


def _score_files(spec):
    """The policy's own files (a .py, a model .zip, a run folder's model) as inputs."""
    target = spec.rpartition(":")[0] if ":" in spec else spec
    if target.endswith((".py", ".zip")):
        return [target]
    if Path(target, "model.zip").is_file():
        return [str(Path(target, "model.zip"))]
    return []


if SCORE_POLICIES:

    rule score_policies:
        input:
            workloads=workload_inputs(config, SCORE_ON),
            agents=agent_inputs(config, SCORE_ON) if SCORE.get("agents", True) else [],
            policies=list(dict.fromkeys(f for spec in SCORE_POLICIES.values() for f in _score_files(str(spec)))),
        output:
            csv="results/score/leaderboard.csv",
            md="results/score/leaderboard.md",
            html="results/score/index.html",
            fingerprints="results/score/fingerprints.csv",
            section="figures/score/leaderboard.md",
        params:
            specs=[f"{name}={spec}" for name, spec in SCORE_POLICIES.items()],
            papers=",".join(SCORE_ON),
            config=json.dumps({k: v for k, v in config.items()}, separators=(",", ":")),
            agents="" if SCORE.get("agents", True) else "--no-agents",
        log:
            "logs/score/score.log",
        benchmark:
            "benchmarks/results/score/score.tsv"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=120,
        conda:
            CONDA_ENV
        shell:
            "schedrl score {params.specs:q} --paper {params.papers} --config-json {params.config:q} "
            "{params.agents} --out-dir results/score --section {output.section:q} > {log:q} 2>&1"

    register("score", *rules.score_policies.output)
    REPORT_SECTIONS.append(rules.score_policies.output.section)
