# Rules for the SB3 DeepRM report (deeprm-sb3-report.txt): train every agent of each variant at the
# training load, evaluate agents and heuristics on held-out job sets across loads, draw figures
# 5.1-5.18 and write the claims table. Code: schedrl.papers.deeprm (layout: run layout and input
# files; training: run arguments; cost: time limits; figures: FIGURES, TARGETS and one function per
# figure; claims). Path patterns below are the package's own layout functions called with wildcards.
import json

from schedrl.agents.hyperparams import hyperparams_file
from schedrl.papers.deeprm import cost as DC
from schedrl.papers.deeprm import figures as DF
from schedrl.papers.deeprm import layout as DL
from schedrl.papers.deeprm import training as DT

DEEPRM = config["deeprm"]
try:
    DL.check_spec(DEEPRM)
except ConfigError as _exc:
    sys.stderr.write(f"schedrl: config: {_exc}\n")
    sys.exit(2)
DEEPRM_ROOT = DL.ROOT
# reference_dirs only concerns the rules that read the authors' agents: the other rules' spec leaves it
# out, so configuring the folder does not rerun training and evaluation. The study's block (tune) only
# concerns deeprm_tune: no other rule's spec has it, so configuring a study reruns nothing else. The
# rules over one run take DL.run_spec (the seed lists narrowed to the run's): adding a seed retrains
# and re-evaluates nothing there is.
DEEPRM_SPEC = json.dumps({k: v for k, v in DEEPRM.items() if k not in ("reference_dirs", "tune")}, sort_keys=True)
DEEPRM_SPEC_AUTHORS = json.dumps({k: v for k, v in DEEPRM.items() if k != "tune"}, sort_keys=True)
DEEPRM_RUN = str(DL.run_dir(DEEPRM_ROOT, "{variant}", "{algo}", "{objective}", "{seed}"))
DEEPRM_BASE = str(DL.baseline_dir(DEEPRM_ROOT, "{variant}", "{baseline}"))
DEEPRM_VALUES = package_file(paper_values_path("deeprm"))
# Cluster time limits (minutes): the cost model's measured rates at half speed (DC.train_minutes).
# DeepRM's own REINFORCE agent, one run per training rate (deeprm.deeprm_agent).
DEEPRM_PG_RUN = str(DL.deeprm_agent_dir(DEEPRM_ROOT, "{variant}", "{rate}", "{seed}"))
# No-learning references of the RL claims (issue 41): the random valid policy per variant and seed,
# the untrained network per variant, algorithm (or deeprm_pg) and seed.
DEEPRM_RANDOM = str(DL.reference_dir(DEEPRM_ROOT, "{variant}", "random", "", "{seed}"))
DEEPRM_UNTRAINED = str(DL.reference_dir(DEEPRM_ROOT, "{variant}", "untrained", "{net}", "{seed}"))
# The report authors' published agents (issue 40): found at DAG-build time in deeprm.reference_dirs;
# when none of those folders exists the rows are skipped (one line says so) and nothing depends on them.
DEEPRM_AUTHORS = DL.authors_runs(DEEPRM)
DEEPRM_AUTHORS_DIR = str(DL.authors_dir(DEEPRM_ROOT, "{variant}", "{authors}"))
if DEEPRM.get("reference_dirs") and DL.authors_folder(DEEPRM) is None:
    sys.stderr.write(f"schedrl: deeprm: no authors' agents ({', '.join(DEEPRM['reference_dirs'])} absent): "
                     "their rows are skipped\n")


wildcard_constraints:
    variant=alternatives(DEEPRM["variants"]),
    algo=alternatives(sorted({a for v in DEEPRM["variants"].values() for a in v["algos"]})),
    objective=alternatives(DEEPRM["objectives"]),
    baseline=alternatives(DEEPRM["baselines"]),
    fig=alternatives(DF.FIGURES),
    rate=r"\d+(\.\d+)?",


rule deeprm_train:
    input:
        hyperparams=lambda wildcards: package_file(hyperparams_file(wildcards.algo)),
    output:
        model=f"{DEEPRM_RUN}/model.zip",
        curve=f"{DEEPRM_RUN}/learning_curve.csv",
        timing=f"{DEEPRM_RUN}/timing.json",
    params:
        env_args=lambda wildcards: DT.train_env_args(DEEPRM, wildcards.variant, wildcards.objective),
        env_id=DL.ENV_ID,
        wrapper=DL.WRAPPERS[0],
        steps=lambda wildcards: DT.run_steps(DEEPRM, wildcards.variant, wildcards.algo, wildcards.objective),
        checkpoint_every=lambda wildcards: DT.run_checkpoint_every(DEEPRM, wildcards.variant, wildcards.algo, wildcards.objective),
        # the report protocol's model choice, made while training (deeprm.report_selection), and the
        # variant's hyperparameter overrides (deeprm.variants.<variant>.hyperparams, a tuned recipe) as
        # --hp options: one param, so a run without overrides keeps its params and is not retrained
        selection=lambda wildcards: DT.train_options(DEEPRM, wildcards.variant, wildcards.algo),
        run_dir=DEEPRM_RUN,
    log:
        "logs/deeprm/{variant}/{algo}/{objective}/seed{seed}/train.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/{algo}/{objective}/seed{seed}/train.tsv"
    threads: 1
    resources:
        mem_mb=2500,
        runtime=lambda wildcards: DC.train_minutes(DEEPRM, wildcards.algo, wildcards.variant, wildcards.objective),
    conda:
        CONDA_ENV
    shell:
        "schedrl train --env {params.env_id} {params.env_args} --env-wrapper {params.wrapper} "
        "--algo {wildcards.algo} --variant deeprm-{wildcards.variant} --steps {params.steps} "
        "--seed {wildcards.seed} --checkpoint-every {params.checkpoint_every} {params.selection} --threads {threads} --restart-if-changed "
        "--run-dir {params.run_dir} > {log:q} 2>&1"


# An agent's protocols (held out, the report's, greedy) play in one rule: one start-up, one job.
rule deeprm_evaluate_agent:
    input:
        model=f"{DEEPRM_RUN}/model.zip",
    output:
        DL.eval_outputs(DEEPRM_RUN, DL.AGENT_PROTOCOLS, fingerprint=True),
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
        protocols=" ".join(DL.AGENT_PROTOCOLS),
    log:
        "logs/deeprm/{variant}/{algo}/{objective}/seed{seed}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/{algo}/{objective}/seed{seed}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=90,  # three protocols one after another
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} --protocol {params.protocols} "
        "--run-dir {params.run_dir} --out-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_train_pg:
    input:
        hyperparams=package_file(hyperparams_file(DL.DEEPRM_AGENT)),
    output:
        model=f"{DEEPRM_PG_RUN}/model.zip",
        curve=f"{DEEPRM_PG_RUN}/learning_curve.csv",
        timing=f"{DEEPRM_PG_RUN}/timing.json",
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=DEEPRM_PG_RUN,
    log:
        "logs/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/train.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/train.tsv"
    threads: 1
    resources:
        # 200 env copies and one iteration's observations (~0.6 GB at rate 0.7): 1.7 GB peak measured
        mem_mb=3000,
        runtime=lambda wildcards: DC.agent_minutes(DEEPRM, wildcards.rate),
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm train-agent --spec {params.spec:q} --rate {wildcards.rate} --seed {wildcards.seed} "
        "--run-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


# DeepRM's agent: both protocols at its training rate in one rule; greedy only where the claims read it
# (the box rate's runs), a rule of its own.
rule deeprm_evaluate_pg:
    input:
        model=f"{DEEPRM_PG_RUN}/model.zip",
    output:
        DL.eval_outputs(DEEPRM_PG_RUN, DL.PROTOCOLS, fingerprint=True),
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
        protocols=" ".join(DL.PROTOCOLS),
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
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} --protocol {params.protocols} "
        "--run-dir {params.run_dir} --rates {wildcards.rate} --out-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_evaluate_pg_greedy:
    input:
        model=f"{DEEPRM_PG_RUN}/model.zip",
    output:
        DL.eval_outputs(DEEPRM_PG_RUN, [DL.GREEDY], fingerprint=True),
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
        protocol=DL.GREEDY,
    log:
        "logs/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/evaluate_greedy.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/evaluate_greedy.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} --protocol {params.protocol} "
        "--run-dir {params.run_dir} --rates {wildcards.rate} --out-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_evaluate_random:
    output:
        [str(p) for p in DL.reference_outputs(DEEPRM_RANDOM)],
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        out_dir=DEEPRM_RANDOM,
    log:
        "logs/deeprm/{variant}/reference/random/seed{seed}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/reference/random/seed{seed}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate-reference --spec {params.spec:q} --variant {wildcards.variant} --reference random "
        "--seed {wildcards.seed} --out-dir {params.out_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_evaluate_untrained:
    input:
        hyperparams=lambda wildcards: package_file(hyperparams_file(wildcards.net)),
    output:
        [str(p) for p in DL.reference_outputs(DEEPRM_UNTRAINED)],
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        out_dir=DEEPRM_UNTRAINED,
    wildcard_constraints:
        net=alternatives(sorted({a for v in DEEPRM["variants"].values() for a in v["algos"]} | {DL.DEEPRM_AGENT})),
    log:
        "logs/deeprm/{variant}/reference/untrained/{net}/seed{seed}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/reference/untrained/{net}/seed{seed}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate-reference --spec {params.spec:q} --variant {wildcards.variant} --reference untrained "
        "--algo {wildcards.net} --seed {wildcards.seed} --out-dir {params.out_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_fingerprints:
    input:
        DL.fingerprint_files(DEEPRM, DEEPRM_ROOT),
    output:
        f"{DEEPRM_ROOT}/fingerprints.csv",
    params:
        spec=DEEPRM_SPEC,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/fingerprints.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm fingerprints --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


rule deeprm_budget_agent:
    input:
        model=f"{DEEPRM_RUN}/model.zip",
    output:
        [str(DL.budget_path(DEEPRM_RUN, p)) for p in DL.PROTOCOLS],
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
        protocols=" ".join(DL.PROTOCOLS),
    log:
        "logs/deeprm/{variant}/{algo}/{objective}/seed{seed}/budget.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/{algo}/{objective}/seed{seed}/budget.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate-budgets --spec {params.spec:q} --protocol {params.protocols} "
        "--run-dir {params.run_dir} --out-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_budget_pg:
    input:
        model=f"{DEEPRM_PG_RUN}/model.zip",
    output:
        [str(DL.budget_path(DEEPRM_PG_RUN, p)) for p in DL.PROTOCOLS],
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
        protocols=" ".join(DL.PROTOCOLS),
    log:
        "logs/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/budget.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/deeprm_pg/rate{rate}/seed{seed}/budget.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate-budgets --spec {params.spec:q} --protocol {params.protocols} "
        "--run-dir {params.run_dir} --rate {wildcards.rate} --out-dir {params.run_dir} --threads {threads} > {log:q} 2>&1"


rule deeprm_evaluate_baseline:
    output:
        DL.eval_outputs(DEEPRM_BASE, DL.PROTOCOLS),
    params:
        spec=DL.run_spec(DEEPRM),
        out_dir=DEEPRM_BASE,
        protocols=" ".join(DL.PROTOCOLS),
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
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} --protocol {params.protocols} "
        "--baseline {wildcards.baseline} --out-dir {params.out_dir} > {log:q} 2>&1"


rule deeprm_evaluate_authors:
    input:
        lambda wildcards: [str(p) for v, n, files in DEEPRM_AUTHORS if (v, n) == (wildcards.variant, wildcards.authors)
                           for p in files],
    output:
        DL.eval_outputs(DEEPRM_AUTHORS_DIR, DL.PROTOCOLS),
    wildcard_constraints:
        authors=alternatives(sorted({n for _, n, _ in DEEPRM_AUTHORS})),
    params:
        spec=DL.run_spec(DEEPRM, authors=True),
        out_dir=DEEPRM_AUTHORS_DIR,
        protocols=" ".join(DL.PROTOCOLS),
    log:
        "logs/deeprm/{variant}/authors/{authors}/evaluate.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/authors/{authors}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm evaluate --spec {params.spec:q} --variant {wildcards.variant} --protocol {params.protocols} "
        "--authors {wildcards.authors} --out-dir {params.out_dir} > {log:q} 2>&1"


rule deeprm_figure:
    input:
        lambda wildcards: [str(p) for p in DF.figure_inputs(DEEPRM, DEEPRM_ROOT, wildcards.fig)],
    output:
        figure("deeprm", "{fig}"),
    params:
        caption=lambda wildcards: f"Report {wildcards.fig}: {DF.FIGURES[wildcards.fig].caption}",
        spec=DEEPRM_SPEC_AUTHORS,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/figures/{fig}.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm figure {wildcards.fig} --spec {params.spec:q} --root {params.root} "
        "--out {output.png:q} > {log:q} 2>&1"


rule deeprm_never_placed:
    input:
        lambda wildcards: [str(p) for p in DF.figure_inputs(DEEPRM, DEEPRM_ROOT, "never_placed")],
    output:
        figure("deeprm", "never_placed"),
    params:
        spec=DEEPRM_SPEC_AUTHORS,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/figures/never_placed.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm figure never_placed --spec {params.spec:q} --root {params.root} "
        "--out {output.png:q} > {log:q} 2>&1"


rule deeprm_agent_curve:
    input:
        lambda wildcards: [str(p) for p in DF.figure_inputs(DEEPRM, DEEPRM_ROOT, "deeprm_agent_curve")],
    output:
        figure("deeprm", "deeprm_agent_curve"),
    params:
        spec=DEEPRM_SPEC,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/figures/deeprm_agent_curve.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm figure deeprm_agent_curve --spec {params.spec:q} --root {params.root} "
        "--out {output.png:q} > {log:q} 2>&1"


rule deeprm_claims:
    input:
        evaluations=DL.evaluation_files(DEEPRM, DEEPRM_ROOT),
        budgets=DL.budget_files(DEEPRM, DEEPRM_ROOT),
        references=DL.reference_files(DEEPRM, DEEPRM_ROOT),
        fingerprints=DL.fingerprint_files(DEEPRM, DEEPRM_ROOT),
        authors=DL.authors_files(DEEPRM, DEEPRM_ROOT),
        values=DEEPRM_VALUES,
        probes=RECIPE_PROBES,
    output:
        claims=f"{DEEPRM_ROOT}/claims.csv",
        budget=f"{DEEPRM_ROOT}/claims_budget.csv",
    params:
        spec=DEEPRM_SPEC_AUTHORS,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/claims.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm claims --spec {params.spec:q} --root {params.root} --out {output.claims:q} "
        "--budget-out {output.budget:q} > {log:q} 2>&1"


rule deeprm_budget_figure:
    input:
        f"{DEEPRM_ROOT}/claims_budget.csv",
    output:
        figure("deeprm", "budget"),
    params:
        caption="DeepRM report: each RL claim's value against the training of the agents behind it",
        spec=DEEPRM_SPEC,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/figures/budget.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm figure budget --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule deeprm_tables:
    input:
        evaluations=DL.evaluation_files(DEEPRM, DEEPRM_ROOT),
        timings=DL.timing_files(DEEPRM, DEEPRM_ROOT),
        authors=DL.authors_files(DEEPRM, DEEPRM_ROOT),
        values=DEEPRM_VALUES,
    output:
        results="figures/deeprm/table_load130.md",
        timing="figures/deeprm/training_speed.md",
    params:
        spec=DEEPRM_SPEC_AUTHORS,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/tables.log",
    conda:
        CONDA_ENV
    shell:
        "(schedrl deeprm table --spec {params.spec:q} --root {params.root} --out {output.results:q} && "
        "schedrl deeprm table --timing --spec {params.spec:q} --root {params.root} --out {output.timing:q}) "
        "> {log:q} 2>&1"


# The report protocol plays one sampled episode of an agent's best-in-sample model: replay it on the
# same sequence at the box rate with DL.REPLAY_SAMPLING_SEEDS sampling seeds (a constant, not a config
# key: a new key in the deeprm section would change every rule's params). Only the headline claims'
# agents (discrete phase 2, slowdown) are asked for (DL.replay_files).
rule deeprm_replay:
    input:
        model=f"{DEEPRM_RUN}/model.zip",
    output:
        str(DL.replay_path(DEEPRM_RUN)),
    params:
        spec=lambda wildcards: DL.run_spec(DEEPRM, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
        sampling_seeds=DL.REPLAY_SAMPLING_SEEDS,
    log:
        "logs/deeprm/{variant}/{algo}/{objective}/seed{seed}/replay.log",
    benchmark:
        "benchmarks/results/deeprm/{variant}/{algo}/{objective}/seed{seed}/replay.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm replay --spec {params.spec:q} --run-dir {params.run_dir} "
        "--sampling-seeds {params.sampling_seeds} --out {output:q} --threads {threads} > {log:q} 2>&1"


rule deeprm_replay_table:
    input:
        DL.replay_table_inputs(DEEPRM, DEEPRM_ROOT),
    output:
        "figures/deeprm/replay_insample.md",
    params:
        spec=DEEPRM_SPEC,
        root=lambda wildcards: DEEPRM_ROOT,
    log:
        "logs/deeprm/replay_insample.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl deeprm table --replay --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


# The paper-budget scale's target (config/paper-budget.yaml): only what its trained agents feed
# (the replay table among the targets; its replays also named).
rule deeprm_paper_budget:
    input:
        [f for t in DF.trained_targets(DEEPRM) for f in t.files()],
        rules.deeprm_fingerprints.output,
        DL.replay_files(DEEPRM, DEEPRM_ROOT),


register_targets("deeprm", DF.trained_targets(DEEPRM), rules)  # figures whose agents this scale trains
register("deeprm", *rules.deeprm_fingerprints.output)
REPORT_SECTIONS.extend(rules.deeprm_tables.output)
REPORT_SECTIONS.extend(rules.deeprm_replay_table.output)


# The hyperparameter study behind the tuned agent (issue 69; deeprm.tune, beyond the report): Optuna over
# an SB3 algorithm's values and the remedies (action masks, many training job sets, the network), trained
# on the training job sets and scored on validation job sets (neither training nor held-out test sets).
# Built only where the config has deeprm.tune (the smoke scale, config/tune.yaml); its spec keeps tune.
if "tune" in DEEPRM:
    DEEPRM_TUNE = DEEPRM["tune"]

    rule deeprm_tune:
        output:
            trials="results/tuned/deeprm/trials.csv",
            recipe="results/tuned/deeprm/recipe.yml",
        params:
            spec=study_spec_json(DEEPRM, DL.STUDY_PINS),
        log:
            "logs/tuned/deeprm.log",
        benchmark:
            "benchmarks/results/tuned/deeprm.tsv"
        threads: 1
        resources:
            mem_mb=3000,
            runtime=int(DEEPRM_TUNE["budget_core_h"] * 60 * 2) + 10,
        conda:
            CONDA_ENV
        shell:
            "schedrl tune deeprm --spec {params.spec:q} --out results/tuned/deeprm --threads {threads} > {log:q} 2>&1"

    register("deeprm", rules.deeprm_tune.output.recipe)
