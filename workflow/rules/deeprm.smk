# Rules for the SB3 DeepRM report (deeprm-sb3-report.txt): train every agent of each variant at the
# training load, evaluate agents and heuristics on held-out job sets across loads, draw figures
# 5.1-5.18 and write the claims table. Folder layout: schedrl.experiments.deeprm.
# Input functions (deeprm_env_args, deeprm_*_inputs) are in common.smk.
import json

from schedrl.experiments import deeprm as DX

DEEPRM = config["deeprm"]
try:
    DX.check_spec(DEEPRM)
except ConfigError as _exc:
    sys.stderr.write(f"schedrl: config: {_exc}\n")
    sys.exit(2)
DEEPRM_ROOT = "results/deeprm"
DEEPRM_SPEC = json.dumps(DEEPRM, sort_keys=True)
DEEPRM_RUN = f"{DEEPRM_ROOT}/{{variant}}/{{algo}}/{{objective}}/seed{{seed}}"
DEEPRM_BASE = f"{DEEPRM_ROOT}/{{variant}}/baseline/{{baseline}}"
# Runtime estimates (minutes) for cluster schedulers: ~100 env steps/s worst case per core.
DEEPRM_TRAIN_MIN = max(10, int(DEEPRM["train"]["steps"] / 100 / 60) + 5)
# DeepRM's own REINFORCE agent, one run per training rate (deeprm.deeprm_agent).
DEEPRM_PG_RUN = f"{DEEPRM_ROOT}/{{variant}}/deeprm_pg/slowdown/rate{{rate}}/seed{{seed}}"
_PG = DEEPRM.get("deeprm_agent") or {}
# ~1,000 env steps/s per core and ~200 steps per episode, worst case
DEEPRM_PG_MIN = max(10, int(_PG.get("iterations", 0) * _PG.get("jobsets", 0) * _PG.get("trajectories", 0)
                            * 200 / 1000 / 60) + 5)


wildcard_constraints:
    variant="(discrete|multibinary)-(stacked|image)",
    algo="dqn|a2c|ppo|trpo|maskable_ppo",
    objective="slowdown|completion_time",
    baseline="sjf|packer|random",
    fig=r"fig5_\d+",
    rate=r"\d+(\.\d+)?",


rule deeprm_train:
    output:
        model=f"{DEEPRM_RUN}/model.zip",
        curve=f"{DEEPRM_RUN}/learning_curve.csv",
        timing=f"{DEEPRM_RUN}/timing.json",
    params:
        env_args=deeprm_env_args,
        env_id=DX.ENV_ID,
        wrapper=DX.WRAPPERS[0],
        steps=DEEPRM["train"]["steps"],
        checkpoint_every=DEEPRM["train"]["checkpoint_every"],
        run_dir=DEEPRM_RUN,
    log:
        "logs/deeprm/{variant}/{algo}/{objective}/seed{seed}/train.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/{algo}/{objective}/seed{seed}/train.tsv"
    threads: 1
    resources:
        mem_mb=2500,
        runtime=DEEPRM_TRAIN_MIN,
    conda:
        CONDA_ENV
    shell:
        "schedrl train --env {params.env_id} {params.env_args} --env-wrapper {params.wrapper} "
        "--algo {wildcards.algo} --variant deeprm-{wildcards.variant} --steps {params.steps} "
        "--seed {wildcards.seed} --checkpoint-every {params.checkpoint_every} --threads {threads} --restart-if-changed "
        "--run-dir {params.run_dir} > {log:q} 2>&1"


rule deeprm_evaluate_agent:
    input:
        model=f"{DEEPRM_RUN}/model.zip",
    output:
        jobs=f"{DEEPRM_RUN}/eval_jobs.csv",
        episodes=f"{DEEPRM_RUN}/eval_episodes.csv",
    params:
        spec=DEEPRM_SPEC,
        run_dir=subpath(input.model, parent=True),
    log:
        "logs/deeprm/{variant}/{algo}/{objective}/seed{seed}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/{algo}/{objective}/seed{seed}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} "
        "--run-dir {params.run_dir} --out-jobs {output.jobs:q} --out-episodes {output.episodes:q} "
        "--threads {threads} > {log:q} 2>&1"


rule deeprm_train_pg:
    output:
        model=f"{DEEPRM_PG_RUN}/model.zip",
        curve=f"{DEEPRM_PG_RUN}/learning_curve.csv",
        timing=f"{DEEPRM_PG_RUN}/timing.json",
    params:
        spec=DEEPRM_SPEC,
        run_dir=DEEPRM_PG_RUN,
    log:
        "logs/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/train.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/train.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=DEEPRM_PG_MIN,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm train-agent --spec {params.spec:q} --rate {wildcards.rate} --seed {wildcards.seed} "
        "--run-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_evaluate_pg:
    input:
        model=f"{DEEPRM_PG_RUN}/model.zip",
    output:
        jobs=f"{DEEPRM_PG_RUN}/eval_jobs.csv",
        episodes=f"{DEEPRM_PG_RUN}/eval_episodes.csv",
    params:
        spec=DEEPRM_SPEC,
        run_dir=subpath(input.model, parent=True),
    log:
        "logs/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} "
        "--run-dir {params.run_dir} --rates {wildcards.rate} --out-jobs {output.jobs:q} "
        "--out-episodes {output.episodes:q} --threads {threads} > {log:q} 2>&1"


rule deeprm_evaluate_baseline:
    output:
        jobs=f"{DEEPRM_BASE}/eval_jobs.csv",
        episodes=f"{DEEPRM_BASE}/eval_episodes.csv",
    params:
        spec=DEEPRM_SPEC,
    log:
        "logs/deeprm/{variant}/baseline/{baseline}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/baseline/{baseline}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} "
        "--baseline {wildcards.baseline} --out-jobs {output.jobs:q} --out-episodes {output.episodes:q} "
        "> {log:q} 2>&1"


rule deeprm_figure:
    input:
        deeprm_figure_inputs,
    output:
        figure("deeprm", "{fig}"),
    params:
        spec=DEEPRM_SPEC,
        root=DEEPRM_ROOT,
    log:
        "logs/deeprm/figures/{fig}.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm figure {wildcards.fig} --spec {params.spec:q} --root {params.root} "
        "--out {output.png:q} > {log:q} 2>&1"


rule deeprm_claims:
    input:
        deeprm_claims_inputs,
    output:
        f"{DEEPRM_ROOT}/claims.csv",
    params:
        spec=DEEPRM_SPEC,
        root=subpath(output[0], parent=True),  # the claims table sits at the root of the runs
    log:
        "logs/deeprm/claims.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm claims --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


for _fig in DX.FIGURES:
    register("deeprm", *figure("deeprm", _fig))
register("deeprm", rules.deeprm_claims.output[0])
CLAIMS.append("results/deeprm/claims.csv")


rule deeprm_tables:
    input:
        evaluations=deeprm_claims_inputs,
        timings=deeprm_timing_inputs,
    output:
        results="figures/deeprm/table_load130.md",
        timing="figures/deeprm/training_speed.md",
    params:
        spec=DEEPRM_SPEC,
        root=DEEPRM_ROOT,
    log:
        "logs/deeprm/tables.log",
    conda:
        CONDA_ENV
    shell:
        "(schedrl deeprm table --spec {params.spec:q} --root {params.root} --out {output.results:q} && "
        "schedrl deeprm table --timing --spec {params.spec:q} --root {params.root} --out {output.timing:q}) "
        "> {log:q} 2>&1"


register("deeprm", *rules.deeprm_tables.output)
REPORT_SECTIONS.extend(rules.deeprm_tables.output)
