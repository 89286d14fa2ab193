# Rules for the MDP-design paper (mdp-design.txt): train SB3 PPO (Table 2) in every MDP variant x
# Table 3 scenario x horizon x seed, evaluate each agent on the same trials, transfer the compact
# agent of one scenario to all others, draw Figures 3-6 and the t-test tables, write the claims.
# Code: schedrl.papers.mdp (layout as ML: variants, scenarios, config checks, paths and the file
# lists the rules ask for; training as MT: schedrl train's options and kept checkpoints; cost as MC:
# the runtime resources; evaluation, references: what the 'schedrl mdp' commands run; figures: TARGETS
# and one function per output; claims). Path patterns are the layout functions called with wildcards.
#   results/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/   run folder + eval_episodes.csv
#   results/mdp/transfer/H{horizon}/{mdp_variant}-from-scenario{scenario}/seed{seed}/eval_episodes.csv
#   each beside a fingerprint.json (issue 41: what the agent plays), collected in results/mdp/fingerprints.csv
#   results/mdp/reference/{random,untrained}/...   the same evaluations by the no-learning references
#   results/mdp/reference/sjf/H{horizon}/eval_episodes.csv   SJF on every scenario's trials (issue 60)
#   figures/mdp/fig{3,4,5,6}.{png,pdf,csv}, figures/mdp/*_ttests.md, results/mdp/claims.csv
#   results/mdp/claims_scenario{scenario}.csv   the claims of one scenario's runs (one recorded run each)
# A scale may set fig3, transfer, horizon_study and fig5 null (config/paper-budget.yaml): their
# rules are then asked for nothing and their claims read "not comparable".
import json

from schedrl.agents.hyperparams import hyperparams_file
from schedrl.papers.mdp import cost as MC
from schedrl.papers.mdp import layout as ML
from schedrl.papers.mdp import training as MT
from schedrl.papers.mdp import figures as MDP_FIGURES

MDP = config["mdp"]
try:
    ML.check_spec(MDP)
except ConfigError as _exc:
    sys.stderr.write(f"schedrl: config: {_exc}\n")
    sys.exit(2)
MDP_ROOT = ML.ROOT
# The study's block (tune) only concerns mdp_tune: no other rule's spec has it, so configuring a study
# reruns nothing else. The rules over one run take ML.run_spec (seeds, and in its own scenario the
# scenarios, narrowed to the run's): adding a seed or scenario re-evaluates nothing there is.
MDP_SPEC = json.dumps({k: v for k, v in MDP.items() if k != "tune"}, sort_keys=True)
MDP_RUN = str(ML.run_dir(MDP_ROOT, "{horizon}", "{mdp_variant}", "{scenario}", "{seed}"))
MDP_TRANSFER = str(ML.transfer_dir(MDP_ROOT, "{horizon}", "{mdp_variant}", "{scenario}", "{seed}"))
MDP_VALUES = package_file(paper_values_path("mdp"))
MDP_HYPERPARAMS = package_file(hyperparams_file(ML.ALGO))


wildcard_constraints:
    horizon=r"\d+",
    mdp_variant=alternatives(ML.VARIANTS),
    scenario=r"\d+",


rule mdp_train:
    input:
        # the algorithm's file: ppo.yaml, maskable_ppo.yaml where mdp.hyperparams.<variant>.mask is set
        hyperparams=lambda wildcards: package_file(hyperparams_file(MT.run_algo(MDP, wildcards.mdp_variant))),
    output:
        model=f"{MDP_RUN}/model.zip",
        curve=f"{MDP_RUN}/learning_curve.csv",
        timing=f"{MDP_RUN}/timing.json",
    params:
        env_args=lambda wildcards: MT.train_env_args(wildcards.mdp_variant, wildcards.scenario, wildcards.horizon),
        env_id=ML.ENV_ID,
        wrapper=ML.WRAPPERS[0],
        # Table 2's PPO, and a variant's mdp.hyperparams block (beyond the paper: a tuned recipe) as MaskablePPO
        # and --hp options after the block's name: without the block "ppo" and "mdp" as before, so the
        # paper's runs keep their params and are not retrained
        algo=lambda wildcards: MT.run_algo(MDP, wildcards.mdp_variant),
        hp_variant=lambda wildcards: MT.train_hp_args(MDP, wildcards.mdp_variant),
        steps=MDP["train"]["steps"],
        checkpoint_every=MDP["train"]["checkpoint_every"],
        keep_steps=",".join(map(str, MT.budget_steps(MDP))),
        run_dir=MDP_RUN,
    log:
        "logs/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/train.log",
    benchmark:
        "benchmarks/results/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/train.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=lambda wildcards: MC.train_minutes(wildcards.mdp_variant, wildcards.scenario, wildcards.horizon,
                                                   MDP["train"]["steps"], MC.recipe_net(MDP, wildcards.mdp_variant)),
    conda:
        CONDA_ENV
    shell:
        "schedrl train --env {params.env_id} {params.env_args} --env-wrapper {params.wrapper} "
        "--algo {params.algo} --variant {params.hp_variant} --steps {params.steps} --seed {wildcards.seed} "
        "--checkpoint-every {params.checkpoint_every} --keep-steps {params.keep_steps} --threads {threads} "
        "--restart-if-changed "
        "--run-dir {params.run_dir} > {log:q} 2>&1"


rule mdp_evaluate:
    input:
        model=f"{MDP_RUN}/model.zip",
    output:
        table=ML.eval_path(MDP_RUN),
        fingerprint=ML.fingerprint_path(MDP_RUN),
    params:
        spec=lambda wildcards: ML.run_spec(MDP, wildcards.seed, wildcards.scenario),
        run_dir=subpath(input.model, parent=True),
    log:
        "logs/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/evaluate.log",
    benchmark:
        "benchmarks/results/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/evaluate.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp evaluate --spec {params.spec:q} --run-dir {params.run_dir} --out {output.table:q} "
        "--threads {threads} > {log:q} 2>&1"


rule mdp_transfer:
    input:
        model=f"{MDP_RUN}/model.zip",
    output:
        table=ML.eval_path(MDP_TRANSFER),
        fingerprint=ML.fingerprint_path(MDP_TRANSFER),
    params:
        spec=lambda wildcards: ML.run_spec(MDP, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
    log:
        "logs/mdp/transfer/H{horizon}/{mdp_variant}-from-scenario{scenario}/seed{seed}.log",
    benchmark:
        "benchmarks/results/mdp/transfer/H{horizon}/{mdp_variant}-from-scenario{scenario}/seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp transfer --spec {params.spec:q} --run-dir {params.run_dir} --out {output.table:q} "
        "--threads {threads} > {log:q} 2>&1"


rule mdp_reference:
    # issue 41: every evaluation (own scenario and transfer) played again by the uniform-random valid
    # policy or the untrained network (the run's seed, no training step); the claims are computed
    # again on these. No training needed, one job per reference agent.
    input:
        hyperparams=MDP_HYPERPARAMS,
    output:
        ML.reference_files(MDP, MDP_ROOT, "{ref_agent}"),
    params:
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    wildcard_constraints:
        ref_agent=alternatives(ML.REFERENCE_AGENTS),
    log:
        "logs/mdp/reference_{ref_agent}.log",
    benchmark:
        "benchmarks/results/mdp/reference_{ref_agent}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=MC.reference_minutes(MDP),
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp reference --agent {wildcards.ref_agent} --spec {params.spec:q} --root {params.root} "
        "--threads {threads} > {log:q} 2>&1"


rule mdp_sjf:
    # issue 60: SJF on every scenario's evaluation trials (main horizon), the level beside the agents
    input:
        MDP_VALUES,
    output:
        ML.sjf_path(MDP_ROOT, MDP["horizon"]),
    params:
        spec=MDP_SPEC,
    log:
        "logs/mdp/reference_sjf.log",
    benchmark:
        "benchmarks/results/mdp/reference_sjf.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp sjf --spec {params.spec:q} --out {output:q} > {log:q} 2>&1"


rule mdp_uniform:
    # issue 68: uniform play over all actions on every scenario's evaluation trials (main horizon),
    # once per seed, for the normalised scale
    input:
        MDP_VALUES,
    output:
        ML.uniform_path(MDP_ROOT, MDP["horizon"]),
    params:
        spec=MDP_SPEC,
    log:
        "logs/mdp/reference_uniform.log",
    benchmark:
        "benchmarks/results/mdp/reference_uniform.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp uniform --spec {params.spec:q} --out {output:q} > {log:q} 2>&1"


NORMALISED_INPUTS.append(ML.uniform_path(MDP_ROOT, MDP["horizon"]))


rule mdp_fingerprints:
    input:
        ML.fingerprint_files(MDP, MDP_ROOT),
    output:
        ML.fingerprints_path(MDP_ROOT),
    params:
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/fingerprints.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp fingerprints --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


rule mdp_budget_evaluate:
    # issue 24: the run's checkpoints at 1/8, 1/4 and 1/2 of training under the final evaluation's protocol;
    # issue 60: each checkpoint's fingerprint (what it plays) beside its table
    input:
        model=f"{MDP_RUN}/model.zip",
    output:
        table=ML.budget_path(MDP_RUN),
        fingerprints=[str(p) for p in ML.budget_fingerprint_paths(MDP_RUN)],
    params:
        spec=lambda wildcards: ML.run_spec(MDP, wildcards.seed, wildcards.scenario),
        run_dir=subpath(input.model, parent=True),
    log:
        "logs/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/budget_evaluate.log",
    benchmark:
        "benchmarks/results/mdp/H{horizon}/{mdp_variant}/scenario{scenario}/seed{seed}/budget_evaluate.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp budget-evaluate --spec {params.spec:q} --run-dir {params.run_dir} --out {output.table:q} "
        "--threads {threads} > {log:q} 2>&1"


rule mdp_transfer_budget:
    input:
        model=f"{MDP_RUN}/model.zip",
    output:
        table=ML.budget_path(MDP_TRANSFER),
        fingerprints=[str(p) for p in ML.budget_fingerprint_paths(MDP_TRANSFER)],
    params:
        spec=lambda wildcards: ML.run_spec(MDP, wildcards.seed),
        run_dir=subpath(input.model, parent=True),
    log:
        "logs/mdp/transfer/H{horizon}/{mdp_variant}-from-scenario{scenario}/seed{seed}.budget.log",
    benchmark:
        "benchmarks/results/mdp/transfer/H{horizon}/{mdp_variant}-from-scenario{scenario}/seed{seed}.budget.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp budget-evaluate --transfer --spec {params.spec:q} --run-dir {params.run_dir} --out {output.table:q} "
        "--threads {threads} > {log:q} 2>&1"


rule mdp_fig5_bench:
    output:
        ML.bench_path(MDP_ROOT),
    params:
        spec=MDP_SPEC,
    log:
        "logs/mdp/fig5_bench.log",
    benchmark:
        "benchmarks/results/mdp/fig5_bench.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp bench-horizon --spec {params.spec:q} --out {output:q} --threads {threads} > {log:q} 2>&1"


rule mdp_fig3:
    input:
        curves=ML.curve_files(MDP, MDP_ROOT),
        values=MDP_VALUES,
    output:
        figure("mdp", "fig3"),
    params:
        caption=f"MDP-design Figure 3: {MDP_FIGURES.CAPTIONS['fig3']}",
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/fig3.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp figure fig3 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mdp_fig4:
    input:
        evaluations=ML.evaluation_files(MDP, MDP_ROOT, horizon=MDP["horizon"]),
        references=ML.claims_inputs(MDP, MDP_ROOT)["references"],
        sjf=ML.sjf_path(MDP_ROOT, MDP["horizon"]),
        values=MDP_VALUES,
    output:
        figure("mdp", "fig4"),
        md="figures/mdp/fig4_ttests.md",
    params:
        caption=f"MDP-design Figure 4: {MDP_FIGURES.CAPTIONS['fig4']}",
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/fig4.log",
    conda:
        CONDA_ENV
    shell:
        "(schedrl mdp figure fig4 --spec {params.spec:q} --root {params.root} --out {output.png:q} && "
        "schedrl mdp table fig4_ttests --spec {params.spec:q} --root {params.root} --out {output.md:q}) > {log:q} 2>&1"


# issue 60: Fig. 4's pair at every budget checkpoint, with what each agent plays there; the whole
# spec's table for the report, and one per scenario for the paper-budget scale's one-scenario runs.
def _fig4_budget_inputs(spec):
    files = ML.claims_inputs(spec, MDP_ROOT)
    return files["evaluations"] + files["budgets"] + files["fingerprints"] + files["references"] + files["sjf"]


rule mdp_fig4_budget:
    input:
        _fig4_budget_inputs(MDP),
    output:
        "figures/mdp/fig4_budget.md",
    params:
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/fig4_budget.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp table fig4_budget --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


rule mdp_fig4_budget_scenario:
    input:
        lambda wildcards: _fig4_budget_inputs(ML.only_scenarios(MDP, [int(wildcards.scenario)])),
    output:
        "figures/mdp/fig4_budget_scenario{scenario}.md",
    params:
        spec=lambda wildcards: json.dumps(ML.only_scenarios(MDP, [int(wildcards.scenario)]), sort_keys=True),
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/fig4_budget_scenario{scenario}.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp table fig4_budget --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


rule mdp_fig5:
    input:
        timings=ML.timing_files(MDP, MDP_ROOT),
        bench=ML.bench_path(MDP_ROOT),
        values=MDP_VALUES,
        hyperparams=MDP_HYPERPARAMS,
    output:
        figure("mdp", "fig5"),
    params:
        caption=f"MDP-design Figure 5: {MDP_FIGURES.CAPTIONS['fig5']}",
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/fig5.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp figure fig5 --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mdp_fig6:
    input:
        transfer=ML.transfer_files(MDP, MDP_ROOT),
        own=ML.evaluation_files(MDP, MDP_ROOT, horizon=MDP["horizon"], variants=ML.transfer_variants(MDP)[:1]),
        values=MDP_VALUES,
    output:
        figure("mdp", "fig6"),
        md="figures/mdp/fig6_ttests.md",
    params:
        caption=f"MDP-design Figure 6: {MDP_FIGURES.CAPTIONS['fig6']}",
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/fig6.log",
    conda:
        CONDA_ENV
    shell:
        "(schedrl mdp figure fig6 --spec {params.spec:q} --root {params.root} --out {output.png:q} && "
        "schedrl mdp table fig6_ttests --spec {params.spec:q} --root {params.root} --out {output.md:q}) > {log:q} 2>&1"


rule mdp_horizon:
    input:
        evaluations=ML.evaluation_files(MDP, MDP_ROOT, variants=(ML.horizon_study(MDP) or {}).get("variants", []),
                                        scenarios=(ML.horizon_study(MDP) or {}).get("scenarios", [])),
        values=MDP_VALUES,
    output:
        "figures/mdp/horizon_ttests.md",
    params:
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/horizon_ttests.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp table horizon_ttests --spec {params.spec:q} --root {params.root} --out {output:q} > {log:q} 2>&1"


rule mdp_claims:
    input:
        **ML.claims_inputs(MDP, MDP_ROOT),
        values=MDP_VALUES,
        hyperparams=MDP_HYPERPARAMS,
        probes=RECIPE_PROBES,
    output:
        claims=f"{MDP_ROOT}/claims.csv",
        budget=f"{MDP_ROOT}/claims_budget.csv",
    params:
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/claims.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp claims --spec {params.spec:q} --root {params.root} --out {output.claims:q} "
        "--budget-out {output.budget:q} > {log:q} 2>&1"


rule mdp_budget:
    input:
        table=f"{MDP_ROOT}/claims_budget.csv",
    output:
        figure("mdp", "budget"),
    params:
        caption=f"MDP-design: {MDP_FIGURES.CAPTIONS['budget']}",
        spec=MDP_SPEC,
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/figures/budget.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp figure budget --spec {params.spec:q} --root {params.root} --out {output.png:q} > {log:q} 2>&1"


rule mdp_claims_scenario:
    # the claims of one scenario's runs (the spec narrowed to it: ML.only_scenarios), for a scale run
    # one scenario at a time (config/paper-budget.yaml), each recorded with its own verdicts
    input:
        unpack(lambda wildcards: ML.claims_inputs(ML.only_scenarios(MDP, [int(wildcards.scenario)]), MDP_ROOT)),
        values=MDP_VALUES,
        hyperparams=MDP_HYPERPARAMS,
        probes=RECIPE_PROBES,
    output:
        claims=f"{MDP_ROOT}/claims_scenario{{scenario}}.csv",
        budget=f"{MDP_ROOT}/claims_budget_scenario{{scenario}}.csv",
    params:
        spec=lambda wildcards: json.dumps(ML.only_scenarios(MDP, [int(wildcards.scenario)]), sort_keys=True),
        root=lambda wildcards: MDP_ROOT,
    log:
        "logs/mdp/claims_scenario{scenario}.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl mdp claims --spec {params.spec:q} --root {params.root} --out {output.claims:q} "
        "--budget-out {output.budget:q} > {log:q} 2>&1"


# The paper-budget scale's target (config/paper-budget.yaml: C+S+R and image-like at the paper's 3 M
# steps): the runs of every configured scenario, their evaluations, budget checkpoints, fingerprints,
# the random, untrained and SJF references, Fig. 4 and its t-tests, the budget figure and the claims.
rule mdp_paper_budget:
    input:
        [f for t in MDP_FIGURES.trained_targets(MDP) for f in t.files()],
        rules.mdp_fingerprints.output,
        # uniform play, read by the normalised scale alone: a seed's record scales by it too (issue 68)
        ML.uniform_path(MDP_ROOT, MDP["horizon"]),
    log:
        "logs/mdp/paper_budget.log",


# One scenario at a time (each its own recorded run): mdp_paper_budget_s3, _s6, ... build that
# scenario's runs, evaluations, budget checkpoints and references, and its claims table.
for _sid in MDP["scenarios"]:

    rule:
        name:
            f"mdp_paper_budget_s{_sid}"
        input:
            f"{MDP_ROOT}/claims_scenario{_sid}.csv",
            f"figures/mdp/fig4_budget_scenario{_sid}.md",
            ML.fingerprint_files(ML.only_scenarios(MDP, [_sid]), MDP_ROOT, kinds=["trained"]),
            ML.uniform_path(MDP_ROOT, MDP["horizon"]),
        log:
            f"logs/mdp/paper_budget_s{_sid}.log",


register_targets("mdp", MDP_FIGURES.trained_targets(MDP), rules)
register("mdp", rules.mdp_fingerprints.output[0])
# uniform play, read by the normalised scale alone: `snakemake mdp` builds what a default run's record
# scales by (as mdp_paper_budget does), not only `snakemake all`
register("mdp", ML.uniform_path(MDP_ROOT, MDP["horizon"]))
REPORT_SECTIONS.extend(
    [rules.mdp_fig4.output.md, rules.mdp_fig4_budget.output[0]]
    + ([rules.mdp_fig6.output.md] if ML.transfer_spec(MDP) else [])
    + ([rules.mdp_horizon.output[0]] if ML.horizon_study(MDP) else [])
)


# The hyperparameter study behind the tuned agent (issue 69; mdp.tune, beyond the paper): Optuna over PPO's
# values, the network and the action mask in one MDP and scenario, trained on fresh job sets and scored on
# validation job sets (neither evaluation trials nor training seeds). Built only where the config has
# mdp.tune (the smoke scale, config/tune.yaml); its spec keeps tune and pins the runs' seeds (ML.STUDY_PINS).
if "tune" in MDP:
    from schedrl.papers.mdp import tuning as MDP_TUNING

    try:  # on the whole section: the study's rule is given it with the runs' seeds pinned
        MDP_TUNING.tune_spec(MDP)
    except ConfigError as _exc:
        sys.stderr.write(f"schedrl: config: {_exc}\n")
        sys.exit(2)
    MDP_TUNE = MDP["tune"]

    rule mdp_tune:
        output:
            trials="results/tuned/mdp/trials.csv",
            recipe="results/tuned/mdp/recipe.yml",
        params:
            spec=study_spec_json(MDP, ML.STUDY_PINS),
        log:
            "logs/tuned/mdp.log",
        benchmark:
            "benchmarks/results/tuned/mdp.tsv"
        threads: 1
        resources:
            mem_mb=3000,
            runtime=int(MDP_TUNE["budget_core_h"] * 60 * 2) + 10,
        conda:
            CONDA_ENV
        shell:
            "schedrl tune mdp --spec {params.spec:q} --out results/tuned/mdp --threads {threads} > {log:q} 2>&1"

    register("mdp", rules.mdp_tune.output.recipe)


# The tuned recipe's runs (config/tuned/mdp.yml: mdp.hyperparams.<variant>, seeds 0-2) without the rest
# of the paper-budget target: each variant with a hyperparams block in every configured scenario and
# seed, its evaluation, budget checkpoints and fingerprints, and on the same trials SJF, uniform play and
# the random valid and untrained references (no training: what `schedrl normalised` scales it by). Built only where
# the config has mdp.hyperparams. (mdp_paper_budget trains them too, with the image-like runs of every
# seed at the paper's recipe, which its claims compare them with.)
if MDP.get("hyperparams"):
    _MDP_TUNED = [v for v in MDP["variants"] if v in MDP["hyperparams"]]
    _MDP_TUNED_EVALS = ML.evaluation_files(MDP, MDP_ROOT, horizon=MDP["horizon"], variants=_MDP_TUNED)
    _MDP_TUNED_DIRS = {Path(p).parent for p in _MDP_TUNED_EVALS}

    rule mdp_tuned:
        input:
            _MDP_TUNED_EVALS,
            [p for p in ML.budget_files(MDP, MDP_ROOT) if Path(p).parent in _MDP_TUNED_DIRS],
            ML.sjf_path(MDP_ROOT, MDP["horizon"]),
            ML.uniform_path(MDP_ROOT, MDP["horizon"]),
            [f for agent in ML.REFERENCE_AGENTS for f in ML.reference_files(MDP, MDP_ROOT, agent)],
        log:
            "logs/mdp/tuned.log",
