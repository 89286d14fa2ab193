# Rules for the runtime-prediction paper (runtime-prediction.txt; brief beside it). Code:
# schedrl.papers.runtime (experiments: workloads, algorithms, PPO runs and their evaluation;
# figures: one function per table/figure and TARGETS; claims; paper_values.yaml with Tables 4-6).
#
# Table 4: utilisation of SJF, SJF w/ BF, FCFS, FCFS w/ BF (EASY) on the 12 Lublin workload halves
# (WL1/WL2 x WRA 100/050/RND x a/b) from rule workload_runtime (workloads.smk), beside the paper's.
#   results/runtime/heuristics/{workload}.csv           metrics per algorithm (schedrl heuristics run)
#   results/runtime/heuristics/{workload}/<alg>.csv      per-job schedules
#   figures/runtime/table4.{png,pdf,csv,md}             the table (csv = long table with paper + diff)
#
# Tables 5-6: SB3 PPO per method (baseline, proposal NN1/NN2) x training half x Table 3 grid point
# x seed, trained with the actual runtime as estimate; evaluated on its own half and every 'b'
# half (oracle estimates), plus the sensitivity estimators on the same-tendency 'b' half.
#   results/runtime/agents/{method}/{train}/{grid}/{seed<k>|draw<d>-seed<k>}/  run folder, evaluation.csv,
#                                                        evaluation_budget.csv (checkpoints 1/8, 1/4, 1/2)
#   results/runtime/claims_budget.csv, figures/runtime/budget.{png,pdf,csv}  RL claims against training budget
#   figures/runtime/{table5,table6}.{png,pdf,csv,md}, figures/runtime/{curves,sensitivity}.{png,pdf,csv}
#   results/runtime/claims.csv                           claims of Tables 4-6 (+ sensitivity), RL claims with
#                                                        the no-learning references' verdicts (issue 41)
#   results/runtime/agents/.../fingerprint.json          what each agent plays (schedrl.experiments.fingerprint)
#   results/runtime/references/{random,untrained}/{method}/{train}/{grid}/{rep}/  the references' evaluation.csv
#                                                        (same protocol, no training), cut from one play per group:
#   results/runtime/references/{random/any,untrained/{method}}/all/{grid}/{rep}/  its evaluation.csv, fingerprint.json
#   results/runtime/fingerprints.csv                     one row per evaluated agent, references included
import json
import shlex

from schedrl.agents.hyperparams import hyperparams_file
from schedrl.papers.runtime import budget as RB
from schedrl.papers.runtime import experiments as RX
from schedrl.papers.runtime import figures as RUNTIME_FIGURES
from schedrl.papers.runtime import halving as RH
from schedrl.papers.runtime import references as RREF

RUNTIME = cfg("runtime", default={})
try:
    RX.check_spec(RUNTIME)
except ConfigError as _exc:
    sys.stderr.write(f"schedrl: config: {_exc}\n")
    sys.exit(2)
RUNTIME_SPEC = json.dumps(RUNTIME, sort_keys=True)
# The rules over one run folder take RX.run_spec (agents.seeds and draws narrowed to the run's): adding
# a seed or a draw retrains and re-evaluates nothing there is.
RUNTIME_RUN = str(RX.run_dir(RX.ROOT, "{rt_method}", "{rt_train}", "{rt_grid}", "0")).replace("seed0", "{rt_rep}")
RUNTIME_DRAWS = RX.draws(RUNTIME) if "agents" in RUNTIME else [0]
RUNTIME_REFERENCES = [f for ref in RREF.REFERENCES for f in RREF.reference_files(RUNTIME, ref)] if "agents" in RUNTIME else []
RUNTIME_FINGERPRINTS = RREF.fingerprint_files(RUNTIME) if "agents" in RUNTIME else []
# successive halving over the grid (runtime.agents.halving, beyond the paper): (eta, rungs) or None
RUNTIME_HALVING = RH.settings(RUNTIME) if "agents" in RUNTIME else None


def runtime_draw(wildcards):
    """Lublin draw of a run folder (seed<k> or draw<d>-seed<k>)."""
    return RX.parse_replicate(wildcards.rt_rep)[0]


def runtime_seed(wildcards):
    return RX.parse_replicate(wildcards.rt_rep)[1]


def runtime_train_swf(wildcards):
    return RX.workload_file(wildcards.rt_train, runtime_draw(wildcards))


def runtime_draw_swfs(wildcards):
    return [RX.workload_file(w, runtime_draw(wildcards)) for w in RX.WORKLOADS]


def runtime_draw_seed(wildcards):
    """Workload seed of Lublin draw k: the config seed + k."""
    return config["seed"] + int(wildcards.rt_draw)


RUNTIME_HEURISTICS = [RX.heuristics_file(w, d) for d in RUNTIME_DRAWS for w in RX.WORKLOADS]
RUNTIME_VALUES = package_file(paper_values_path("runtime"))
RUNTIME_T4 = RUNTIME.get("table4", {})
RUNTIME_NODES = RUNTIME.get("nodes", 256)
RUNTIME_SIM_STEP = RUNTIME_T4.get("sim_step", 60)


wildcard_constraints:
    rt_workload=alternatives(RX.WORKLOADS),
    rt_method=alternatives(RX.METHODS),
    rt_train=alternatives(RX.TRAIN_WORKLOADS),
    rt_grid=r"T\d+-M\d+-K\d+",
    rt_rep=r"(draw[1-9]\d*-)?seed\d+",
    rt_rung=r"\d+",
    rt_draw=r"[1-9]\d*",
    seed=r"\d+",


rule runtime_heuristics:
    input:
        "results/workloads/runtime/{rt_workload}.swf",
    output:
        metrics=RX.heuristics_file("{rt_workload}"),
        schedules=directory(f"{RX.HEURISTICS_DIR}/{{rt_workload}}"),
    params:
        nodes=RUNTIME_NODES,
        algorithms=RX.ALGORITHMS,
        sim_step=RUNTIME_SIM_STEP,
        overrun=cfg("sim", "overrun", default="kill"),
    log:
        "logs/runtime/heuristics_{rt_workload}.log",
    benchmark:
        "benchmarks/results/runtime/heuristics_{rt_workload}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl heuristics run {input:q} --label {wildcards.rt_workload} --nodes {params.nodes} "
        "--algorithms {params.algorithms} --sim-step {params.sim_step} --overrun {params.overrun} "
        "--out {output.metrics:q} --schedules-dir {output.schedules:q} 2> {log:q}"


# Lublin draws 1, 2, ... (runtime.agents.draws): the same six files per workload from seed + draw,
# and the heuristics on them (Table 4 itself shows draw 0; the RL claims compare with the mean).
rule runtime_workload_draw:
    output:
        expand("results/workloads/runtime/draw{{rt_draw}}/{{wl}}_{wra}{half}.swf", wra=_WL_WRA, half=("a", "b")),
    wildcard_constraints:
        wl="wl1|wl2",
    params:
        wras=" ".join(_WL_WRA),
        seed=runtime_draw_seed,
    log:
        "logs/workloads/runtime_draw{rt_draw}_{wl}.log",
    benchmark:
        "benchmarks/results/workloads/runtime_draw{rt_draw}_{wl}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload generate --preset {wildcards.wl} --wra {params.wras} --half a b "
        "--seed {params.seed} --out-dir results/workloads/runtime/draw{wildcards.rt_draw} 2> {log:q}"


rule runtime_heuristics_draw:
    input:
        "results/workloads/runtime/draw{rt_draw}/{rt_workload}.swf",
    output:
        metrics=f"{RX.HEURISTICS_DIR}/draw{{rt_draw}}/{{rt_workload}}.csv",
        schedules=directory(f"{RX.HEURISTICS_DIR}/draw{{rt_draw}}/{{rt_workload}}"),
    params:
        nodes=RUNTIME_NODES,
        algorithms=RX.ALGORITHMS,
        sim_step=RUNTIME_SIM_STEP,
        overrun=cfg("sim", "overrun", default="kill"),
    log:
        "logs/runtime/heuristics_draw{rt_draw}_{rt_workload}.log",
    benchmark:
        "benchmarks/results/runtime/heuristics_draw{rt_draw}_{rt_workload}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl heuristics run {input:q} --label {wildcards.rt_workload} --nodes {params.nodes} "
        "--algorithms {params.algorithms} --sim-step {params.sim_step} --overrun {params.overrun} "
        "--out {output.metrics:q} --schedules-dir {output.schedules:q} 2> {log:q}"


# Heuristics under the agent's own action set (issue 38): FCFS / SJF / largest first among the
# window's jobs that fit, played through the evaluation env, on every half of each Lublin draw.
RUNTIME_FIT = [RX.fit_file(d) for d in RUNTIME_DRAWS] if "agents" in RUNTIME else []
for _draw in RUNTIME_DRAWS if RUNTIME_FIT else []:

    rule:
        name:
            f"runtime_fit_heuristics_draw{_draw}"
        input:
            [RX.workload_file(w, _draw) for w in RX.WORKLOADS],
        output:
            RX.fit_file(_draw),
        params:
            spec=RX.run_spec(RUNTIME, RX.replicate(_draw, RUNTIME["agents"]["seeds"][0])),
            draw=_draw,
        log:
            f"logs/runtime/fit_heuristics_draw{_draw}.log",
        benchmark:
            f"benchmarks/results/runtime/fit_heuristics_draw{_draw}.tsv"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=15,
        conda:
            CONDA_ENV
        shell:
            "schedrl runtime fit-heuristics --spec {params.spec:q} --draw {params.draw} --out {output:q} > {log:q} 2>&1"


rule runtime_table4:
    input:
        runs=[RX.heuristics_file(w) for w in RX.WORKLOADS],
        values=RUNTIME_VALUES,
    output:
        figure("runtime", "table4"),
        md="figures/runtime/table4.md",
    params:
        caption=f"Runtime paper Table 4: {RUNTIME_FIGURES.TARGETS[0].caption}, ours beside the paper's",
        nodes=RUNTIME_NODES,
        sim_step=RUNTIME_SIM_STEP,
        seed=config["seed"],
    log:
        "logs/runtime/table4.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime table4 {input.runs:q} --nodes {params.nodes} --sim-step {params.sim_step} "
        "--seed {params.seed} --out-png {output.png:q} > {log:q} 2>&1"


def runtime_rung_records(wildcards, rung):
    """Rung ``rung``'s records of every run of this method and training half (none before rung 0)."""
    return RH.group_records(RUNTIME, wildcards.rt_method, wildcards.rt_train, rung) if rung >= 0 else []


def runtime_previous_option(wildcards, input):
    return "--previous " + " ".join(shlex.quote(f) for f in input.previous) if input.previous else ""


# Successive halving (runtime.agents.halving; halving.py): rung r < rungs-1 trains a run to the rung's
# steps and plays it on its own half, once the rung before has ranked every run of its method and
# training half; the last rung is runtime_train below. Without halving no rule asks for these files.
rule runtime_train_rung:
    input:
        swf=runtime_train_swf,
        hyperparams=package_file(hyperparams_file(RX.ALGO)),
        previous=lambda wildcards: runtime_rung_records(wildcards, int(wildcards.rt_rung) - 1),
    output:
        f"{RUNTIME_RUN}/{RH.RUNGS_DIR}/{{rt_rung}}.json",
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        run_dir=RUNTIME_RUN,
        seed=runtime_seed,
        draw=runtime_draw,
        previous=runtime_previous_option,
    log:
        "logs/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/rung{rt_rung}.log",
    benchmark:
        "benchmarks/results/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/rung{rt_rung}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=lambda wildcards: RH.train_minutes(RUNTIME, wildcards.rt_method, int(wildcards.rt_rung)),
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime train-rung --spec {params.spec:q} --method {wildcards.rt_method} --workload {wildcards.rt_train} "
        "--grid {wildcards.rt_grid} --seed {params.seed} --draw {params.draw} --run-dir {params.run_dir} "
        "--rung {wildcards.rt_rung} {params.previous} --threads {threads} > {log:q} 2>&1"


rule runtime_train:
    input:
        swf=runtime_train_swf,
        hyperparams=package_file(hyperparams_file(RX.ALGO)),
        previous=lambda wildcards: runtime_rung_records(wildcards, RUNTIME_HALVING[1] - 2) if RUNTIME_HALVING else [],
    output:
        model=f"{RUNTIME_RUN}/model.zip",
        curve=f"{RUNTIME_RUN}/learning_curve.csv",
        timing=f"{RUNTIME_RUN}/timing.json",
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        run_dir=RUNTIME_RUN,
        seed=runtime_seed,
        draw=runtime_draw,
        previous=runtime_previous_option,
    log:
        "logs/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/train.log",
    benchmark:
        "benchmarks/results/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/train.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=lambda wildcards: (RH.train_minutes(RUNTIME, wildcards.rt_method, RUNTIME_HALVING[1] - 1)
                                   if RUNTIME_HALVING else RX.train_minutes(RUNTIME, wildcards.rt_method)),
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime train --spec {params.spec:q} --method {wildcards.rt_method} --workload {wildcards.rt_train} "
        "--grid {wildcards.rt_grid} --seed {params.seed} --draw {params.draw} --run-dir {params.run_dir} "
        "{params.previous} --threads {threads} > {log:q} 2>&1"


rule runtime_evaluate:
    input:
        model=f"{RUNTIME_RUN}/model.zip",
        swf=runtime_draw_swfs,
    output:
        evaluation=str(RX.eval_path(RUNTIME_RUN)),
        fingerprint=f"{RUNTIME_RUN}/fingerprint.json",
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        run_dir=RUNTIME_RUN,
    log:
        "logs/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/evaluate.log",
    benchmark:
        "benchmarks/results/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime evaluate --spec {params.spec:q} --run-dir {params.run_dir} --out {output.evaluation:q} "
        "--threads {threads} > {log:q} 2>&1"


# No-learning references (issue 41): uniform-random valid play and the untrained network (the
# run's seed and hyperparameters, no training step) under the same evaluation protocol. Neither has
# learnt from its training half, so one play per group stands in for its runs (references.py):
# random one per grid x seed x draw for every method, untrained one per method x grid x seed x draw;
# each run's table is cut from it. They need no trained model, so they run beside training.
def runtime_ref_path(ref, method, train, name="evaluation.csv"):
    return str(RREF.reference_dir(RX.ROOT, ref, method, train, "{rt_grid}", "0") / name).replace("seed0", "{rt_rep}")


RUNTIME_AGENT_METHODS = RUNTIME.get("agents", {}).get("methods", [])
RUNTIME_AGENT_HALVES = RUNTIME.get("agents", {}).get("workloads", [])


rule runtime_reference_random:
    input:
        swf=runtime_draw_swfs,
    output:
        runs=[runtime_ref_path("random", m, w) for m in RUNTIME_AGENT_METHODS for w in RUNTIME_AGENT_HALVES],
        evaluation=runtime_ref_path("random", RREF.ANY_METHOD, RX.ALL_HALVES),
        fingerprint=runtime_ref_path("random", RREF.ANY_METHOD, RX.ALL_HALVES, "fingerprint.json"),
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        seed=runtime_seed,
        draw=runtime_draw,
    log:
        "logs/runtime/references/random/{rt_grid}/{rt_rep}/evaluate.log",
    benchmark:
        "benchmarks/results/runtime/references/random/{rt_grid}/{rt_rep}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime evaluate-reference --spec {params.spec:q} --reference random --grid {wildcards.rt_grid} "
        "--seed {params.seed} --draw {params.draw} --root {RX.ROOT} --threads {threads} > {log:q} 2>&1"


# Uniform play over every action, valid or not (issue 68): the unmasked random player, one group per
# grid x seed x draw like random valid play; read by the normalised scale only.
rule runtime_reference_uniform:
    input:
        swf=runtime_draw_swfs,
    output:
        runs=[runtime_ref_path("uniform", m, w) for m in RUNTIME_AGENT_METHODS for w in RUNTIME_AGENT_HALVES],
        evaluation=runtime_ref_path("uniform", RREF.ANY_METHOD, RX.ALL_HALVES),
        fingerprint=runtime_ref_path("uniform", RREF.ANY_METHOD, RX.ALL_HALVES, "fingerprint.json"),
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        seed=runtime_seed,
        draw=runtime_draw,
    log:
        "logs/runtime/references/uniform/{rt_grid}/{rt_rep}/evaluate.log",
    benchmark:
        "benchmarks/results/runtime/references/uniform/{rt_grid}/{rt_rep}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime evaluate-reference --spec {params.spec:q} --reference uniform --grid {wildcards.rt_grid} "
        "--seed {params.seed} --draw {params.draw} --root {RX.ROOT} --threads {threads} > {log:q} 2>&1"


RUNTIME_UNIFORM = RREF.reference_files(RUNTIME, RREF.UNIFORM) if "agents" in RUNTIME else []
NORMALISED_INPUTS.extend(RUNTIME_UNIFORM)


rule runtime_reference_untrained:
    input:
        swf=runtime_draw_swfs,
    output:
        runs=[runtime_ref_path("untrained", "{rt_method}", w) for w in RUNTIME_AGENT_HALVES],
        evaluation=runtime_ref_path("untrained", "{rt_method}", RX.ALL_HALVES),
        fingerprint=runtime_ref_path("untrained", "{rt_method}", RX.ALL_HALVES, "fingerprint.json"),
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        seed=runtime_seed,
        draw=runtime_draw,
    log:
        "logs/runtime/references/untrained/{rt_method}/{rt_grid}/{rt_rep}/evaluate.log",
    benchmark:
        "benchmarks/results/runtime/references/untrained/{rt_method}/{rt_grid}/{rt_rep}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime evaluate-reference --spec {params.spec:q} --reference untrained --method {wildcards.rt_method} "
        "--grid {wildcards.rt_grid} --seed {params.seed} --draw {params.draw} --root {RX.ROOT} --threads {threads} "
        "> {log:q} 2>&1"


rule runtime_fingerprints:
    input:
        RUNTIME_FINGERPRINTS,
    output:
        f"{RX.ROOT}/fingerprints.csv",
    params:
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/fingerprints.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime fingerprints --spec {params.spec:q} --root {RX.ROOT} --out {output:q} > {log:q} 2>&1"


rule runtime_evaluate_budget:
    input:
        model=f"{RUNTIME_RUN}/model.zip",
        swf=runtime_draw_swfs,
    output:
        str(RB.budget_path(RUNTIME_RUN)),
    params:
        spec=lambda wildcards: RX.run_spec(RUNTIME, wildcards.rt_rep),
        run_dir=RUNTIME_RUN,
    log:
        "logs/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/evaluate_budget.log",
    benchmark:
        "benchmarks/results/runtime/agents/{rt_method}/{rt_train}/{rt_grid}/{rt_rep}/evaluate_budget.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime evaluate-budget --spec {params.spec:q} --run-dir {params.run_dir} --out {output:q} "
        "--threads {threads} > {log:q} 2>&1"


rule runtime_table5:
    input:
        evaluations=RX.evaluation_files(RUNTIME),
        heuristics=RUNTIME_HEURISTICS,
        fit=RUNTIME_FIT,
        references=RUNTIME_REFERENCES,
        values=RUNTIME_VALUES,
    output:
        figure("runtime", "table5"),
        md="figures/runtime/table5.md",
    params:
        caption=f"Runtime paper Table 5: {RUNTIME_FIGURES.CAPTIONS['table5']}",
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/table5.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime figure table5 --spec {params.spec:q} --root {RX.ROOT} --out {output.png:q} > {log:q} 2>&1"


rule runtime_table6:
    input:
        evaluations=RX.evaluation_files(RUNTIME),
        heuristics=RUNTIME_HEURISTICS,
        references=RUNTIME_REFERENCES,
        values=RUNTIME_VALUES,
    output:
        figure("runtime", "table6"),
        md="figures/runtime/table6.md",
    params:
        caption=f"Runtime paper Table 6: {RUNTIME_FIGURES.CAPTIONS['table6']}",
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/table6.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime figure table6 --spec {params.spec:q} --root {RX.ROOT} --out {output.png:q} > {log:q} 2>&1"


rule runtime_curves:
    input:
        curves=RX.curve_files(RUNTIME),
    output:
        figure("runtime", "curves"),
    params:
        caption=f"Runtime paper: {RUNTIME_FIGURES.CAPTIONS['curves']}",
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/curves.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime figure curves --spec {params.spec:q} --root {RX.ROOT} --out {output.png:q} > {log:q} 2>&1"


rule runtime_sensitivity:
    input:
        evaluations=RX.evaluation_files(RUNTIME),
        values=RUNTIME_VALUES,
    output:
        figure("runtime", "sensitivity"),
    params:
        caption=f"Runtime paper, beyond it: {RUNTIME_FIGURES.CAPTIONS['sensitivity']}",
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/sensitivity.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime figure sensitivity --spec {params.spec:q} --root {RX.ROOT} --out {output.png:q} > {log:q} 2>&1"


rule runtime_claims:
    input:
        heuristics=RUNTIME_HEURISTICS,
        fit=RUNTIME_FIT,
        evaluations=RX.evaluation_files(RUNTIME),
        budget=RB.budget_files(RUNTIME),
        references=RUNTIME_REFERENCES,
        fingerprints=[f for f in RUNTIME_FINGERPRINTS if "/agents/" in f],
        values=RUNTIME_VALUES,
        probes=RECIPE_PROBES,
    output:
        claims=f"{RX.ROOT}/claims.csv",
        budget=f"{RX.ROOT}/claims_budget.csv",
    params:
        spec=RUNTIME_SPEC,
        seed=config["seed"],
    log:
        "logs/runtime/claims.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime claims --spec {params.spec:q} --root {RX.ROOT} --seed {params.seed} "
        "--out {output.claims:q} --budget-out {output.budget:q} > {log:q} 2>&1"


rule runtime_budget:
    input:
        f"{RX.ROOT}/claims_budget.csv",
    output:
        figure("runtime", "budget"),
    params:
        caption=f"Runtime paper: {RUNTIME_FIGURES.CAPTIONS['budget']}",
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/budget.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime figure budget --spec {params.spec:q} --root {RX.ROOT} --out {output.png:q} > {log:q} 2>&1"


# The paper's two questions at every budget (issue 59): trained vs random valid play, the untrained
# network and the best fit heuristic; proposal minus baseline where the estimate carries information.
rule runtime_questions:
    input:
        heuristics=RUNTIME_HEURISTICS,
        fit=RUNTIME_FIT,
        evaluations=RX.evaluation_files(RUNTIME),
        budget=RB.budget_files(RUNTIME),
        references=RUNTIME_REFERENCES,
    output:
        "figures/runtime/questions.md",
    params:
        spec=RUNTIME_SPEC,
    log:
        "logs/runtime/questions.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl runtime questions --spec {params.spec:q} --root {RX.ROOT} --out {output:q} > {log:q} 2>&1"


register_targets("runtime", RUNTIME_FIGURES.TARGETS, rules)
if RUNTIME_FINGERPRINTS:
    register("runtime", rules.runtime_fingerprints.output[0])
register("runtime", rules.runtime_questions.output[0])
# uniform play, read by the normalised scale alone: `snakemake runtime` builds what a default run's record
# scales by (as runtime_paper_budget does), not only `snakemake all`
register("runtime", *RUNTIME_UNIFORM)
REPORT_SECTIONS.extend([rules.runtime_table4.output.md, rules.runtime_table5.output.md, rules.runtime_table6.output.md,
                        rules.runtime_questions.output[0]])


# The paper-budget scale's target (config/paper-budget.yaml: baseline and proposal NN1 at the paper's
# 4 M steps on wl2_rnda): its runs, their evaluations, budget checkpoints, no-learning references and
# fingerprints, Table 4's heuristics, the claims and the figures those runs feed; nothing else.
rule runtime_paper_budget:
    input:
        [f for t in RUNTIME_FIGURES.trained_targets(RUNTIME) for f in t.files()],
        RUNTIME_FINGERPRINTS and rules.runtime_fingerprints.output,
        rules.runtime_questions.output,
        # uniform play, read by the normalised scale alone: a seed's record scales by it too (issue 68)
        RUNTIME_UNIFORM,


# The hyperparameter study behind the tuned agent (issue 69; runtime.tune, beyond the paper): Optuna
# over PPO's values and the remedies, trained on draw 0 of the training half and scored on other
# draws of it. Built only where the config has runtime.tune (the smoke scale, config/tune.yaml).
if "tune" in RUNTIME:
    RUNTIME_TUNE = RUNTIME["tune"]

    rule runtime_tune:
        input:
            train=RX.workload_file(RUNTIME_TUNE["workload"], 0),
            validation=[RX.workload_file(RUNTIME_TUNE["workload"], d) for d in RUNTIME_TUNE["validation_draws"]],
        output:
            trials="results/tuned/runtime/trials.csv",
            recipe="results/tuned/runtime/recipe.yml",
            references="results/tuned/runtime/references.csv",
        params:
            spec=study_spec_json(RUNTIME, RX.STUDY_PINS),
        log:
            "logs/tuned/runtime.log",
        benchmark:
            "benchmarks/results/tuned/runtime.tsv"
        threads: 1
        resources:
            mem_mb=3000,
            runtime=int(RUNTIME_TUNE["budget_core_h"] * 60 * 2) + 10,
        conda:
            CONDA_ENV
        shell:
            "schedrl tune runtime --spec {params.spec:q} --out results/tuned/runtime --threads {threads} > {log:q} 2>&1"

    register("runtime", rules.runtime_tune.output.recipe)
