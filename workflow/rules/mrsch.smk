# Rules for MRSch (mrsch.txt): train the DFP agent (two-resource group on S1-S5, three-resource on
# S6-S10; a CNN variant and other job-set orderings for Figs. 3-4) and the scalar-RL baseline,
# evaluate FCFS, the GA, the exhaustive check, scalar RL and MRSch on every workload's test split,
# draw Figures 3-10 and write the claims. Code: schedrl.papers.mrsch (layout, training, evaluation,
# cost, references, figures, claims) and schedrl.agents.dfp.
#   results/mrsch/dfp/{group}/{state}/{ordering}/   DFP run folder (+ validation.csv, selection.json,
#                                                   selected.zip of rule mrsch_select)
#   results/mrsch/scalar_rl/{group}/                REINFORCE run folder
#   results/mrsch/eval/{workload}/{metrics,goals}.csv
#   results/mrsch/eval_insample/{workload}/metrics.csv   the same on the agents' real training sets
#   .../{workload}/fingerprints/*.json, references/   beside each: the trained agents' behaviour
#                fingerprints and their seats played by random and untrained policies (issue 41);
#                results/mrsch/fingerprints.csv collects the fingerprints
#   .../seed{N}/ beside them: the main (MLP, paper ordering) agents again with extra seed N
#                (mrsch.extra_seeds; each *_seed rule is its base rule with these paths)
#   figures/mrsch/fig{3..10}.{png,pdf,csv}, results/mrsch/claims.csv
import json

from schedrl.papers.mrsch import cost as MRC
from schedrl.papers.mrsch import evaluation as MRE
from schedrl.papers.mrsch import figures as MRSCH_FIGURES
from schedrl.papers.mrsch import layout as MRL

MRSCH = config["mrsch"]
try:
    MRL.check_spec(MRSCH)
except ConfigError as _exc:
    sys.stderr.write(f"schedrl: config: {_exc}\n")
    sys.exit(2)
MRSCH_ROOT = str(MRL.ROOT)
# The study's block (tune) only concerns mrsch_tune: no other rule's spec has it, so configuring a
# study reruns nothing else. The rules over one agent seed take MRL.run_spec (extra_seeds narrowed to
# theirs): adding an extra seed retrains and re-evaluates nothing there is.
MRSCH_SPEC = json.dumps({k: v for k, v in MRSCH.items() if k != "tune"}, sort_keys=True)
MRSCH_VALUES = package_file(paper_values_path("mrsch"))
MRSCH_RUNS = MRL.dfp_runs(MRSCH)
MRSCH_GROUPS = MRL.groups(MRSCH)
MRSCH_TWO = MRL.group_workloads(MRSCH, "two") if "two" in MRSCH_GROUPS else []
MRSCH_THREE = MRL.group_workloads(MRSCH, "three") if "three" in MRSCH_GROUPS else []
# the main agents' seeds: None is mrsch.agent_seed (default mrsch.seed; folders without a seed part),
# then mrsch.extra_seeds
MRSCH_SEEDS = [None, *MRL.extra_seeds(MRSCH)]


def mrsch_train_splits(group):
    return [str(MRL.workload_file(w, "train")) for w in MRL.group_workloads(MRSCH, group)]


def mrsch_eval(workloads, name="metrics.csv", split="test", seeds=MRSCH_SEEDS):
    return [str(MRL.eval_dir(MRSCH_ROOT, w, split, s) / name) for s in seeds for w in workloads]


def mrsch_seed(wildcards):
    """The extra seed of a *_seed rule's job, None in the base rules."""
    s = wildcards.get("mrsch_seed")
    return None if s is None else int(s)


def mrsch_seed_arg(wildcards):
    return wildcards.get("mrsch_seed", MRL.agent_seed(MRSCH))


wildcard_constraints:
    mrsch_group="two|three",
    mrsch_state="mlp|cnn",
    mrsch_ordering=r"[a-z]+-[a-z]+-[a-z]+",
    mrsch_workload=r"S\d+",
    # only the configured extra seeds: a request for the base seed's seed<N>/ folder matches no rule
    mrsch_seed="|".join(str(s) for s in MRL.extra_seeds(MRSCH)) or "(?!)",


rule mrsch_train_dfp:
    input:
        splits=lambda wildcards: mrsch_train_splits(wildcards.mrsch_group),
    output:
        model=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/model.zip",
        losses=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/losses.csv",
        timing=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/timing.json",
        budgets=[f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/{MRL.budget_name(f)}"
                 for f in MRL.BUDGET_SNAPSHOTS],
    params:
        spec=lambda wildcards: MRL.run_spec(MRSCH, mrsch_seed(wildcards)),
        root=MRSCH_ROOT,
        seed=mrsch_seed_arg,
    log:
        "logs/mrsch/dfp/{mrsch_group}/{mrsch_state}/{mrsch_ordering}.log",
    benchmark:
        "benchmarks/results/mrsch/dfp/{mrsch_group}/{mrsch_state}/{mrsch_ordering}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=max(10, int(1.5 * MRC.dfp_seconds(MRSCH) / 60)),
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch train-dfp --spec {params.spec:q} --root {params.root} --group {wildcards.mrsch_group} "
        "--state {wildcards.mrsch_state} --ordering {wildcards.mrsch_ordering} --seed {params.seed} "
        "--threads {threads} > {log:q} 2>&1"


# Extra seeds (issue 24): the DAG asks only for the main agents' (mlp, paper ordering); the command
# refuses any other.
use rule mrsch_train_dfp as mrsch_train_dfp_seed with:
    output:
        model=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/seed{{mrsch_seed}}/model.zip",
        losses=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/seed{{mrsch_seed}}/losses.csv",
        timing=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/seed{{mrsch_seed}}/timing.json",
        budgets=[f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{{mrsch_ordering}}/seed{{mrsch_seed}}/{MRL.budget_name(f)}"
                 for f in MRL.BUDGET_SNAPSHOTS],
    log:
        "logs/mrsch/dfp/{mrsch_group}/{mrsch_state}/{mrsch_ordering}/seed{mrsch_seed}.log",
    benchmark:
        "benchmarks/results/mrsch/dfp/{mrsch_group}/{mrsch_state}/{mrsch_ordering}/seed{mrsch_seed}.tsv"


rule mrsch_train_scalar:
    input:
        splits=lambda wildcards: mrsch_train_splits(wildcards.mrsch_group),
    output:
        model=f"{MRSCH_ROOT}/scalar_rl/{{mrsch_group}}/model.zip",
        timing=f"{MRSCH_ROOT}/scalar_rl/{{mrsch_group}}/timing.json",
    params:
        spec=lambda wildcards: MRL.run_spec(MRSCH, mrsch_seed(wildcards)),
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/scalar_rl/{mrsch_group}.log",
    benchmark:
        "benchmarks/results/mrsch/scalar_rl/{mrsch_group}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch train-scalar --spec {params.spec:q} --root {params.root} --group {wildcards.mrsch_group} "
        "--threads {threads} > {log:q} 2>&1"


# Issue 25: each main DFP agent's kept checkpoints (1/8, 1/4, 1/2, all of training) played on its
# group's validation splits; the best by the validation score is copied to selected.zip, which the
# test and in-sample evaluations then use (dfp.select_on_validation; off: the final model.zip).
rule mrsch_select:
    input:
        val=lambda wildcards: [str(MRL.workload_file(w, "val")) for w in MRL.group_workloads(MRSCH, wildcards.mrsch_group)],
        models=lambda wildcards: [str(MRL.budget_model(MRSCH_ROOT, wildcards.mrsch_group, wildcards.mrsch_state, f,
                                                       seed=mrsch_seed(wildcards))) for f in MRL.BUDGET_FRACTIONS],
    output:
        model=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{MRL.PAPER_ORDERING}/{MRL.SELECTED_NAME}",
        table=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{MRL.PAPER_ORDERING}/{MRL.VALIDATION_NAME}",
        selection=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{MRL.PAPER_ORDERING}/{MRL.SELECTION_NAME}",
    params:
        spec=lambda wildcards: MRL.run_spec(MRSCH, mrsch_seed(wildcards)),
        root=MRSCH_ROOT,
        seed=mrsch_seed_arg,
    log:
        "logs/mrsch/select/{mrsch_group}/{mrsch_state}.log",
    benchmark:
        "benchmarks/results/mrsch/select/{mrsch_group}/{mrsch_state}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch select --spec {params.spec:q} --root {params.root} --group {wildcards.mrsch_group} "
        "--state {wildcards.mrsch_state} --seed {params.seed} --threads {threads} > {log:q} 2>&1"


use rule mrsch_select as mrsch_select_seed with:
    output:
        model=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{MRL.PAPER_ORDERING}/seed{{mrsch_seed}}/{MRL.SELECTED_NAME}",
        table=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{MRL.PAPER_ORDERING}/seed{{mrsch_seed}}/{MRL.VALIDATION_NAME}",
        selection=f"{MRSCH_ROOT}/dfp/{{mrsch_group}}/{{mrsch_state}}/{MRL.PAPER_ORDERING}/seed{{mrsch_seed}}/{MRL.SELECTION_NAME}",
    log:
        "logs/mrsch/select/{mrsch_group}/{mrsch_state}/seed{mrsch_seed}.log",
    benchmark:
        "benchmarks/results/mrsch/select/{mrsch_group}/{mrsch_state}/seed{mrsch_seed}.tsv"


def mrsch_models(workload, seed=None):
    """The models a workload's evaluation plays: every agent's, or an extra seed's MLP agent alone."""
    group = MRL.group_of(workload)
    if seed is not None:
        return [str(MRL.eval_model(MRSCH, MRSCH_ROOT, group, "mlp", seed))]
    # the CNN variant and scalar RL where the config trains them (config/paper-budget.yaml: neither)
    return [str(MRL.eval_model(MRSCH, MRSCH_ROOT, group, s)) for _, s in MRL.agent_states(MRSCH, group)] + (
        [f"{MRSCH_ROOT}/scalar_rl/{group}/model.zip"] if MRL.has_scalar(MRSCH) else [])


rule mrsch_evaluate:
    input:
        test=lambda wildcards: str(MRL.workload_file(wildcards.mrsch_workload, "test")),
        models=lambda wildcards: mrsch_models(wildcards.mrsch_workload, mrsch_seed(wildcards)),
    output:
        metrics=f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/metrics.csv",
        goals=f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/goals.csv",
        jobs=f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/jobs.csv",
        fingerprints=directory(f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/fingerprints"),
        references=directory(f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/references"),
    params:
        spec=lambda wildcards: MRL.run_spec(MRSCH, mrsch_seed(wildcards)),
        root=MRSCH_ROOT,
        out_dir=subpath(output.metrics, parent=True),
        seed=mrsch_seed_arg,
    log:
        "logs/mrsch/eval/{mrsch_workload}.log",
    benchmark:
        "benchmarks/results/mrsch/eval/{mrsch_workload}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch evaluate --spec {params.spec:q} --root {params.root} --workload {wildcards.mrsch_workload} "
        "--out-dir {params.out_dir} --seed {params.seed} --threads {threads} > {log:q} 2>&1"


use rule mrsch_evaluate as mrsch_evaluate_seed with:
    output:
        metrics=f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/seed{{mrsch_seed}}/metrics.csv",
        goals=f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/seed{{mrsch_seed}}/goals.csv",
        jobs=f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/seed{{mrsch_seed}}/jobs.csv",
        fingerprints=directory(f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/seed{{mrsch_seed}}/fingerprints"),
        references=directory(f"{MRSCH_ROOT}/eval/{{mrsch_workload}}/seed{{mrsch_seed}}/references"),
    log:
        "logs/mrsch/eval/{mrsch_workload}/seed{mrsch_seed}.log",
    benchmark:
        "benchmarks/results/mrsch/eval/{mrsch_workload}/seed{mrsch_seed}.tsv"


# The public MRSch code trains and tests on one trace: the same evaluation on the real job sets the
# agents trained on, for the claims' in-sample rows.
rule mrsch_evaluate_insample:
    input:
        train=lambda wildcards: str(MRL.workload_file(wildcards.mrsch_workload, "train")),
        models=lambda wildcards: mrsch_models(wildcards.mrsch_workload, mrsch_seed(wildcards)),
    output:
        metrics=f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/metrics.csv",
        jobs=f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/jobs.csv",
        fingerprints=directory(f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/fingerprints"),
        references=directory(f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/references"),
    params:
        spec=lambda wildcards: MRL.run_spec(MRSCH, mrsch_seed(wildcards)),
        root=MRSCH_ROOT,
        out_dir=subpath(output.metrics, parent=True),
        seed=mrsch_seed_arg,
    log:
        "logs/mrsch/eval_insample/{mrsch_workload}.log",
    benchmark:
        "benchmarks/results/mrsch/eval_insample/{mrsch_workload}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch evaluate --spec {params.spec:q} --root {params.root} --workload {wildcards.mrsch_workload} "
        "--split train --out-dir {params.out_dir} --seed {params.seed} --threads {threads} > {log:q} 2>&1"


use rule mrsch_evaluate_insample as mrsch_evaluate_insample_seed with:
    output:
        metrics=f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/seed{{mrsch_seed}}/metrics.csv",
        jobs=f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/seed{{mrsch_seed}}/jobs.csv",
        fingerprints=directory(f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/seed{{mrsch_seed}}/fingerprints"),
        references=directory(f"{MRSCH_ROOT}/eval_insample/{{mrsch_workload}}/seed{{mrsch_seed}}/references"),
    log:
        "logs/mrsch/eval_insample/{mrsch_workload}/seed{mrsch_seed}.log",
    benchmark:
        "benchmarks/results/mrsch/eval_insample/{mrsch_workload}/seed{mrsch_seed}.tsv"


# Issue 24: the DFP agents after 1/8, 1/4 and 1/2 of their training, on the same test splits and
# in-sample sets as the final evaluation (one job per group, every episode of a model in lockstep).
def mrsch_budget_models(group, seed=None):
    states = [s for _, s in MRL.agent_states(MRSCH, group, seed)]
    # with selection on, the final models are played here too (the main evaluation plays the selected ones)
    fractions = MRL.BUDGET_FRACTIONS if MRL.select_on_validation(MRSCH) else MRL.BUDGET_SNAPSHOTS
    return [str(MRL.budget_model(MRSCH_ROOT, group, s, f, seed=seed)) for s in states for f in fractions]


rule mrsch_evaluate_budgets:
    input:
        test=lambda wildcards: [str(MRL.workload_file(w, "test")) for w in MRL.group_workloads(MRSCH, wildcards.mrsch_group)],
        train=lambda wildcards: mrsch_train_splits(wildcards.mrsch_group),
        models=lambda wildcards: mrsch_budget_models(wildcards.mrsch_group, mrsch_seed(wildcards)),
    output:
        metrics=f"{MRSCH_ROOT}/eval_budget/{{mrsch_group}}/metrics.csv",
        goals=f"{MRSCH_ROOT}/eval_budget/{{mrsch_group}}/goals.csv",
    params:
        spec=lambda wildcards: MRL.run_spec(MRSCH, mrsch_seed(wildcards)),
        root=MRSCH_ROOT,
        out_dir=subpath(output.metrics, parent=True),
        seed=mrsch_seed_arg,
    log:
        "logs/mrsch/eval_budget/{mrsch_group}.log",
    benchmark:
        "benchmarks/results/mrsch/eval_budget/{mrsch_group}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch evaluate-budgets --spec {params.spec:q} --root {params.root} --group {wildcards.mrsch_group} "
        "--out-dir {params.out_dir} --seed {params.seed} --threads {threads} > {log:q} 2>&1"


use rule mrsch_evaluate_budgets as mrsch_evaluate_budgets_seed with:
    output:
        metrics=f"{MRSCH_ROOT}/eval_budget/{{mrsch_group}}/seed{{mrsch_seed}}/metrics.csv",
        goals=f"{MRSCH_ROOT}/eval_budget/{{mrsch_group}}/seed{{mrsch_seed}}/goals.csv",
    log:
        "logs/mrsch/eval_budget/{mrsch_group}/seed{mrsch_seed}.log",
    benchmark:
        "benchmarks/results/mrsch/eval_budget/{mrsch_group}/seed{mrsch_seed}.tsv"


# Figures 3, 5-7 and 10 draw MRSch's mean over seeds; 8-9 the base seed's goal trace.
MRSCH_FIG_INPUTS = {
    "fig3": mrsch_eval(MRSCH_TWO),
    "fig4": [f"{MRSCH_ROOT}/dfp/two/mlp/{o}/losses.csv" for o in MRSCH["orderings"]] if MRSCH_TWO else [],
    "fig5": mrsch_eval(MRSCH_TWO),
    "fig6": mrsch_eval(MRSCH_TWO),
    "fig7": mrsch_eval(MRSCH_TWO),
    "fig8": mrsch_eval([MRSCH["fig8"]["workload"]], "goals.csv", seeds=[None]),
    "fig9": mrsch_eval(MRSCH_TWO, "goals.csv", seeds=[None]),
    "fig10": mrsch_eval(MRSCH_THREE),
}


rule mrsch_fig3:
    input:
        data=MRSCH_FIG_INPUTS["fig3"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig3"),
    params:
        caption=f"MRSch Figure 3: {MRSCH_FIGURES.CAPTIONS['fig3']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig3.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig3 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig4:
    input:
        data=MRSCH_FIG_INPUTS["fig4"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig4"),
    params:
        caption=f"MRSch Figure 4: {MRSCH_FIGURES.CAPTIONS['fig4']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig4.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig4 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig5:
    input:
        data=MRSCH_FIG_INPUTS["fig5"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig5"),
    params:
        caption=f"MRSch Figure 5: {MRSCH_FIGURES.CAPTIONS['fig5']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig5.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig5 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig6:
    input:
        data=MRSCH_FIG_INPUTS["fig6"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig6"),
    params:
        caption=f"MRSch Figure 6: {MRSCH_FIGURES.CAPTIONS['fig6']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig6.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig6 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig7:
    input:
        data=MRSCH_FIG_INPUTS["fig7"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig7"),
    params:
        caption=f"MRSch Figure 7: {MRSCH_FIGURES.CAPTIONS['fig7']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig7.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig7 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig8:
    input:
        data=MRSCH_FIG_INPUTS["fig8"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig8"),
    params:
        caption=f"MRSch Figure 8: {MRSCH_FIGURES.CAPTIONS['fig8']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig8.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig8 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig9:
    input:
        data=MRSCH_FIG_INPUTS["fig9"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig9"),
    params:
        caption=f"MRSch Figure 9: {MRSCH_FIGURES.CAPTIONS['fig9']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig9.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig9 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mrsch_fig10:
    input:
        data=MRSCH_FIG_INPUTS["fig10"],
        values=MRSCH_VALUES,
    output:
        figure("mrsch", "fig10"),
    params:
        caption=f"MRSch Figure 10: {MRSCH_FIGURES.CAPTIONS['fig10']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/fig10.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure fig10 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


MRSCH_INSAMPLE = [w for g in MRSCH_GROUPS for w in MRE.insample_workloads(MRSCH, g)]
# Issue 41: every evaluation's fingerprints/ (the trained agents and their no-learning references)
# and references/ (the references' metrics, per-job rows and goal traces, for the claims)
MRSCH_FP_DIRS = (mrsch_eval(MRSCH_TWO + MRSCH_THREE, "fingerprints")
                 + mrsch_eval(MRSCH_INSAMPLE, "fingerprints", split="train"))
MRSCH_REF_DIRS = (mrsch_eval(MRSCH_TWO + MRSCH_THREE, "references")
                  + mrsch_eval(MRSCH_INSAMPLE, "references", split="train"))


rule mrsch_fingerprints:
    input:
        MRSCH_FP_DIRS,
    output:
        f"{MRSCH_ROOT}/fingerprints.csv",
    log:
        "logs/mrsch/fingerprints.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch fingerprints {input:q} --out {output:q} > {log:q} 2>&1"


rule mrsch_claims:
    input:
        data=sorted({f for files in MRSCH_FIG_INPUTS.values() for f in files}),
        insample=mrsch_eval(MRSCH_INSAMPLE, split="train"),
        jobs=mrsch_eval(MRSCH_TWO + MRSCH_THREE, "jobs.csv") + mrsch_eval(MRSCH_INSAMPLE, "jobs.csv", split="train"),
        budgets=[str(MRL.budget_dir(MRSCH_ROOT, g, s) / "metrics.csv") for s in MRSCH_SEEDS for g in MRSCH_GROUPS],
        selection=[str(MRL.dfp_dir(MRSCH_ROOT, g, st, o, s) / MRL.SELECTION_NAME)
                   for g, st, o, s in [(*r, None) for r in MRSCH_RUNS] + MRL.seed_runs(MRSCH)
                   if o == MRL.PAPER_ORDERING] if MRL.select_on_validation(MRSCH) else [],
        fingerprints=f"{MRSCH_ROOT}/fingerprints.csv",
        references=MRSCH_REF_DIRS,
        values=MRSCH_VALUES,
        probes=RECIPE_PROBES,
    output:
        claims=f"{MRSCH_ROOT}/claims.csv",
        budget=f"{MRSCH_ROOT}/claims_budget.csv",
    params:
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/claims.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch claims --spec {params.spec:q} --root {params.root} --out {output.claims:q} > {log:q} 2>&1"


rule mrsch_budget:
    input:
        data=f"{MRSCH_ROOT}/claims_budget.csv",
    output:
        figure("mrsch", "budget"),
    params:
        caption=f"MRSch budget figure: {MRSCH_FIGURES.CAPTIONS['budget']}",
        spec=MRSCH_SPEC,
        root=MRSCH_ROOT,
    log:
        "logs/mrsch/figures/budget.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mrsch figure budget --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


# The paper-budget scale's target (config/paper-budget.yaml): only what its trained runs feed -- the
# main DFP agents at the paper's 200,000 training jobs, their selection on the validation splits,
# evaluations beside FCFS and the GA with their random and untrained references, budget
# checkpoints, fingerprints, the figures they draw (not Fig. 3 without the CNN variant, nor Fig. 4
# without the other orderings) and the claims.
rule mrsch_paper_budget:
    input:
        [f for t in MRSCH_FIGURES.trained_targets(MRSCH) for f in t.files()],
        rules.mrsch_fingerprints.output,
    log:
        "logs/mrsch/paper_budget.log",


register_targets("mrsch", MRSCH_FIGURES.TARGETS, rules)
register("mrsch", *rules.mrsch_fingerprints.output)  # the report's "what the agents learned"


# The hyperparameter study behind the tuned agent (issue 69; mrsch.tune, beyond the paper): Optuna over
# DFP's values (learning rate, replay ratio and memory, exploration, network) for one group's main agent,
# trained on the paper's curriculum scaled to the study's job sets of the group's training splits and
# scored as mrsch_select scores, on its validation splits (never a test split). Built only where the
# config has mrsch.tune (the smoke scale, config/tune.yaml); its spec keeps tune.
if "tune" in MRSCH:
    MRSCH_TUNE = MRSCH["tune"]

    rule mrsch_tune:
        input:
            train=mrsch_train_splits(MRSCH_TUNE["group"]),
            val=[str(MRL.workload_file(w, "val")) for w in MRL.group_workloads(MRSCH, MRSCH_TUNE["group"])],
        output:
            trials="results/tuned/mrsch/trials.csv",
            recipe="results/tuned/mrsch/recipe.yml",
        params:
            spec=study_spec_json(MRSCH, MRL.STUDY_PINS),
        log:
            "logs/tuned/mrsch.log",
        benchmark:
            "benchmarks/results/tuned/mrsch.tsv"
        threads: 1
        resources:
            # two seeds' agents side by side: the paper's network, Adam and a 20,000 memory each (~1.1 GB)
            mem_mb=6000,
            runtime=int(MRSCH_TUNE["budget_core_h"] * 60 * 2) + 10,
        conda:
            CONDA_ENV
        shell:
            "schedrl tune mrsch --spec {params.spec:q} --out results/tuned/mrsch --threads {threads} > {log:q} 2>&1"

    register("mrsch", rules.mrsch_tune.output.recipe)
