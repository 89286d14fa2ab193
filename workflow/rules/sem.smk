# Rules for the 'sem' paper (sem-encoding.txt). Code: schedrl.papers.sem (experiments: trace
# analysis; agents: DRAS vs SEM agents; figures: one function per figure/table and TARGETS;
# claims; paper_values.yaml).


# ---------------------------------------------------------------- trace analysis (section 3.1, 3.3)
# One folder per trace (recorded schedule, or FCFS + EASY where the log has no waits), then the
# paper's Fig. 5, Table 2, Table 3 and Fig. 7 with its numbers beside ours, and the claims table.
# Each trace is the cleaned file of the workload rule (the real log or its announced stand-in);
# its file, label, size and unit are configured once, under workloads.traces.
from schedrl.papers.sem import figures as SEM_FIGURES

SEM_ANALYSIS = cfg("sem", "analysis", default={})
SEM_TRACES = {key: WL_TRACES[key] for key in SEM_ANALYSIS.get("traces", [])}
_unknown = sorted(set(SEM_ANALYSIS.get("traces", [])) - set(WL_TRACES))
if _unknown:
    sys.stderr.write(f"schedrl: config: sem.analysis.traces: {', '.join(_unknown)} not in workloads.traces\n")
    sys.exit(2)


rule sem_analyze_trace:
    input:
        trace="results/workloads/traces/{trace}.swf",
    output:
        summary="results/sem/analysis/{trace}/summary.json",
        cdf="results/sem/analysis/{trace}/running_cdf.csv",
        k_largest="results/sem/analysis/{trace}/k_largest.csv",
    wildcard_constraints:
        trace=alternatives(SEM_TRACES),
    params:
        spec=lambda wildcards: {"label": wildcards.trace, "unit": "nodes", **SEM_TRACES[wildcards.trace]},
        schedule=SEM_ANALYSIS.get("schedule", "auto"),
        max_jobs=SEM_ANALYSIS.get("max_jobs", 0),
        k_max=SEM_ANALYSIS.get("k_max", 80),
    log:
        "logs/sem/analyze_{trace}.log",
    benchmark:
        "benchmarks/results/sem/analyze_{trace}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem trace {input.trace:q} --name {wildcards.trace} --label {params.spec[label]:q} "
        "--source {params.spec[file]:q} --nodes {params.spec[nodes]} --unit {params.spec[unit]} "
        "--schedule {params.schedule} --max-jobs {params.max_jobs} --k-max {params.k_max} "
        "--out-dir results/sem/analysis/{wildcards.trace} > {log:q} 2>&1"


rule sem_trace_figures:
    input:
        summaries=expand("results/sem/analysis/{trace}/summary.json", trace=SEM_TRACES),
        values=package_file(paper_values_path("sem")),
    output:
        fig5=figure("sem", "fig5_running_jobs_cdf"),
        table2=figure("sem", "table2_max_running"),
        table2_md="figures/sem/table2_max_running.md",
        table3=figure("sem", "table3_node_hour_loss"),
        table3_md="figures/sem/table3_node_hour_loss.md",
        fig7=figure("sem", "fig7_k_largest_coverage"),
        claims="results/sem/claims_trace.csv",
    params:
        caption="SEM section 3: " + "; ".join(f"{t.name}: {t.caption}" for t in SEM_FIGURES.TARGETS if t.kind != "claims"),
        folders=[f"results/sem/analysis/{name}" for name in SEM_TRACES],
    log:
        "logs/sem/trace_figures.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem figures {params.folders:q} --figures-dir figures/sem "
        "--claims {output.claims:q} > {log:q} 2>&1"


# ---------------------------------------------------------------- agents (sections 4-5)
# Per trace and encoding, REINFORCE with Table 4's network on the trace's SEM split
# (results/workloads/sem/<trace>/: the workload_sem_split rule), validated after every episode and
# tested; FCFS+EASY and SJF+EASY on the same test jobs; Fig. 11's points (one per encoding and
# machine-size factor); then Table 4, Figs. 8-11 and the claims table (section 3's rows first).
import json as _json

SEM_AGENTS = cfg("sem", "agents", default={})
SEM_AGENT_TRACES = list(SEM_AGENTS.get("traces", []))
SEM_NETWORKS = SEM_AGENTS.get("networks", {})
SEM_SCALING = SEM_AGENTS.get("scaling", {})
SEM_SCALING_POINTS = [(enc, int(f)) for enc, key in (("sem", "factors"), ("dras", "dras_factors"))
                      for f in SEM_SCALING.get(key, [])] if SEM_SCALING else []
_missing = sorted({t for t in SEM_AGENT_TRACES if t not in WL_TRACES or t not in SEM_NETWORKS}
                  | ({SEM_SCALING["trace"]} - set(SEM_NETWORKS) if SEM_SCALING_POINTS else set()))
if _missing:
    sys.stderr.write(f"schedrl: config: sem.agents: {', '.join(_missing)} not in workloads.traces or sem.agents.networks\n")
    sys.exit(2)
SEM_WINDOWS = SEM_AGENTS.get("window_study", {})
if SEM_WINDOWS and SEM_WINDOWS.get("trace") not in SEM_NETWORKS:
    sys.stderr.write(f"schedrl: config: sem.agents.window_study.trace: {SEM_WINDOWS.get('trace')} not in sem.agents.networks\n")
    sys.exit(2)
#: extra training seeds (the first, sem.agents.seed, trains in results/sem/agents/<trace>/<encoder>/)
SEM_EXTRA_SEEDS = [int(s) for s in SEM_AGENTS.get("extra_seeds", [])]
SEM_HYPERPARAMS = _json.dumps(SEM_AGENTS.get("hyperparams", {}), sort_keys=True)
SEM_THREADS = int(SEM_AGENTS.get("threads", 1))
# issue 37: the env's decision process (hold: ours), sampled test play (one pass per play seed, beside
# greedy) and where validation jobs come from (split, or test_like: the block loaded like the test)
SEM_PROCESS = SEM_AGENTS.get("process", "hold")
SEM_PLAY_SEEDS = [int(s) for s in SEM_AGENTS.get("play_seeds", [])]
SEM_VALIDATION = SEM_AGENTS.get("validation", "split")
# Variants beside the faithful agents (one seed, the first): the same agents under another decision
# process (process_<p>, e.g. DRAS's code's), or trained with another reward (reward_<r>: beyond the
# paper, an objective-aligned reward), in results/sem/agents/<trace>/<encoder>/<variant>/.
SEM_VARIANTS = {}
for _t, _ps in SEM_AGENTS.get("extra_processes", {}).items():
    for _p in _ps:
        SEM_VARIANTS.setdefault(_t, {})[f"process_{_p}"] = {"process": _p}
for _t, _r in SEM_AGENTS.get("aligned_rewards", {}).items():
    SEM_VARIANTS.setdefault(_t, {})[f"reward_{_r}"] = {"reward": _r}
_bad = sorted(set(SEM_VARIANTS) - set(SEM_AGENT_TRACES))
if _bad:
    sys.stderr.write(f"schedrl: config: sem.agents.extra_processes/aligned_rewards: {', '.join(_bad)} not in sem.agents.traces\n")
    sys.exit(2)
SEM_VARIANT_RUNS = [f"{t}/{enc}/{v}" for t, vs in SEM_VARIANTS.items() for v in vs for enc in ("sem", "dras")]


def _sem_split(trace):
    base = f"results/workloads/sem/{trace}"
    return {"train": f"{base}/train.swf", "val": f"{base}/val.swf", "test": f"{base}/test.swf",
            "manifest": f"{base}/split.json"}


def _sem_agent_args(trace, encoder, seed=None, variant=None):
    net = SEM_NETWORKS[trace]
    over = SEM_VARIANTS.get(trace, {}).get(variant, {}) if variant else {}
    reward = over.get("reward", net["reward"])
    # reward_kwargs only when set, so runs with the reward's defaults keep their command (no retraining);
    # a variant's own reward takes none (they are the configured reward's)
    rk = net.get("reward_kwargs") if reward == net["reward"] else None
    kwargs = f"--reward-kwargs '{_json.dumps(rk, sort_keys=True)}' " if rk else ""
    process = over.get("process", SEM_PROCESS)
    kwargs += f"--process {process} " if process != "hold" else ""
    return (f"--split-dir results/workloads/sem/{trace} --trace {trace} --encoder {encoder} "
            f"--nodes {net['nodes']} --k {net['k']} --reward {reward} {kwargs}"
            f"--hidden {' '.join(str(h) for h in net['hidden'][encoder])} "
            f"--priority-queues {' '.join(str(q) for q in net.get('priority_queues', []))} "
            f"--hyperparams '{SEM_HYPERPARAMS}' --seed {SEM_AGENTS.get('seed', 0) if seed is None else seed}")


def _sem_test_args(trace):
    """Training's test, validation and episode options, each only when set (old commands stay as they
    were); episode_jobs: a trace's training blocks in place of the split's (beyond the paper: a tuned recipe)."""
    episode_jobs = int(SEM_NETWORKS[trace].get("episode_jobs", 0))
    return ((f"--play-seeds {' '.join(str(s) for s in SEM_PLAY_SEEDS)} " if SEM_PLAY_SEEDS else "")
            + (f"--validation {SEM_VALIDATION} " if SEM_VALIDATION != "split" else "")
            + (f"--episode-jobs {episode_jobs} " if episode_jobs else ""))


rule sem_train_agent:
    input:
        unpack(lambda wildcards: _sem_split(wildcards.trace)),
    output:
        test="results/sem/agents/{trace}/{encoder}/test.json",
        validation="results/sem/agents/{trace}/{encoder}/validation.csv",
        timing="results/sem/agents/{trace}/{encoder}/timing.json",
        budgets="results/sem/agents/{trace}/{encoder}/budgets.csv",
        test_jobs="results/sem/agents/{trace}/{encoder}/test_jobs.csv",
        fingerprint="results/sem/agents/{trace}/{encoder}/fingerprint.json",
        sampled="results/sem/agents/{trace}/{encoder}/test_sampled.csv",
        sampled_jobs="results/sem/agents/{trace}/{encoder}/test_jobs_sampled.csv",
    wildcard_constraints:
        trace=alternatives(SEM_AGENT_TRACES),
        encoder="sem|dras",
    params:
        args=lambda wildcards: _sem_agent_args(wildcards.trace, wildcards.encoder) + " " + _sem_test_args(wildcards.trace),
        episodes=SEM_AGENTS.get("episodes", 0),
    log:
        "logs/sem/train_{trace}_{encoder}.log",
    benchmark:
        "benchmarks/results/sem/train_{trace}_{encoder}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=lambda wildcards: 8000 if wildcards.encoder == "dras" else 2000,
        runtime=lambda wildcards: 240 if wildcards.encoder == "dras" else 60,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem train {params.args} --episodes {params.episodes} --threads {threads} "
        "--out-dir results/sem/agents/{wildcards.trace}/{wildcards.encoder} > {log:q} 2>&1"


rule sem_train_agent_seed:
    # the same agent with another seed (the claims' intervals use every seed; figures the first)
    input:
        unpack(lambda wildcards: _sem_split(wildcards.trace)),
    output:
        test="results/sem/agents/{trace}/{encoder}/seeds/{seed}/test.json",
        validation="results/sem/agents/{trace}/{encoder}/seeds/{seed}/validation.csv",
        timing="results/sem/agents/{trace}/{encoder}/seeds/{seed}/timing.json",
        budgets="results/sem/agents/{trace}/{encoder}/seeds/{seed}/budgets.csv",
        test_jobs="results/sem/agents/{trace}/{encoder}/seeds/{seed}/test_jobs.csv",
        fingerprint="results/sem/agents/{trace}/{encoder}/seeds/{seed}/fingerprint.json",
        sampled="results/sem/agents/{trace}/{encoder}/seeds/{seed}/test_sampled.csv",
        sampled_jobs="results/sem/agents/{trace}/{encoder}/seeds/{seed}/test_jobs_sampled.csv",
    wildcard_constraints:
        trace=alternatives(SEM_AGENT_TRACES),
        encoder="sem|dras",
        seed=r"\d+",
    params:
        args=lambda wildcards: _sem_agent_args(wildcards.trace, wildcards.encoder, int(wildcards.seed)) + " " + _sem_test_args(wildcards.trace),
        episodes=SEM_AGENTS.get("episodes", 0),
    log:
        "logs/sem/train_{trace}_{encoder}_seed{seed}.log",
    benchmark:
        "benchmarks/results/sem/train_{trace}_{encoder}_seed{seed}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=lambda wildcards: 8000 if wildcards.encoder == "dras" else 2000,
        runtime=lambda wildcards: 240 if wildcards.encoder == "dras" else 60,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem train {params.args} --episodes {params.episodes} --threads {threads} "
        "--out-dir results/sem/agents/{wildcards.trace}/{wildcards.encoder}/seeds/{wildcards.seed} > {log:q} 2>&1"


rule sem_train_variant:
    # the same agent (first seed) under another decision process or with another reward (issue 37)
    input:
        unpack(lambda wildcards: _sem_split(wildcards.trace)),
    output:
        test="results/sem/agents/{trace}/{encoder}/{variant}/test.json",
        validation="results/sem/agents/{trace}/{encoder}/{variant}/validation.csv",
        timing="results/sem/agents/{trace}/{encoder}/{variant}/timing.json",
        budgets="results/sem/agents/{trace}/{encoder}/{variant}/budgets.csv",
        test_jobs="results/sem/agents/{trace}/{encoder}/{variant}/test_jobs.csv",
        fingerprint="results/sem/agents/{trace}/{encoder}/{variant}/fingerprint.json",
        sampled="results/sem/agents/{trace}/{encoder}/{variant}/test_sampled.csv",
        sampled_jobs="results/sem/agents/{trace}/{encoder}/{variant}/test_jobs_sampled.csv",
    wildcard_constraints:
        trace=alternatives(SEM_AGENT_TRACES),
        encoder="sem|dras",
        variant=r"(process|reward)_[a-z0-9_]+",
    params:
        args=lambda wildcards: _sem_agent_args(wildcards.trace, wildcards.encoder, variant=wildcards.variant)
        + " " + _sem_test_args(wildcards.trace),
        episodes=SEM_AGENTS.get("episodes", 0),
    log:
        "logs/sem/train_{trace}_{encoder}_{variant}.log",
    benchmark:
        "benchmarks/results/sem/train_{trace}_{encoder}_{variant}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=lambda wildcards: 8000 if wildcards.encoder == "dras" else 2000,
        runtime=lambda wildcards: 240 if wildcards.encoder == "dras" else 60,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem train {params.args} --episodes {params.episodes} --threads {threads} "
        "--out-dir results/sem/agents/{wildcards.trace}/{wildcards.encoder}/{wildcards.variant} > {log:q} 2>&1"


# The no-learning references of every trained agent (issue 41): uniform random valid play and the
# untrained network (built with the run's seed as training builds it), played greedily on the same
# test jobs as the agent's test, in ref_<agent>/ beside it; the claims are computed again with them.
SEM_REFERENCES = ["random", "untrained"]


rule sem_reference:
    input:
        unpack(lambda wildcards: _sem_split(wildcards.trace)),
    output:
        test="results/sem/agents/{trace}/{encoder}/ref_{agent}/test.json",
        test_jobs="results/sem/agents/{trace}/{encoder}/ref_{agent}/test_jobs.csv",
        fingerprint="results/sem/agents/{trace}/{encoder}/ref_{agent}/fingerprint.json",
    wildcard_constraints:
        trace=alternatives(SEM_AGENT_TRACES),
        encoder="sem|dras",
        agent="random|untrained",
    params:
        args=lambda wildcards: _sem_agent_args(wildcards.trace, wildcards.encoder),
    log:
        "logs/sem/reference_{trace}_{encoder}_{agent}.log",
    benchmark:
        "benchmarks/results/sem/reference_{trace}_{encoder}_{agent}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=lambda wildcards: 8000 if wildcards.encoder == "dras" else 2000,
        runtime=lambda wildcards: 30 if wildcards.encoder == "dras" else 10,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem reference {params.args} --agent {wildcards.agent} --threads {threads} "
        "--out-dir results/sem/agents/{wildcards.trace}/{wildcards.encoder}/ref_{wildcards.agent} > {log:q} 2>&1"


rule sem_reference_seed:
    input:
        unpack(lambda wildcards: _sem_split(wildcards.trace)),
    output:
        test="results/sem/agents/{trace}/{encoder}/seeds/{seed}/ref_{agent}/test.json",
        test_jobs="results/sem/agents/{trace}/{encoder}/seeds/{seed}/ref_{agent}/test_jobs.csv",
        fingerprint="results/sem/agents/{trace}/{encoder}/seeds/{seed}/ref_{agent}/fingerprint.json",
    wildcard_constraints:
        trace=alternatives(SEM_AGENT_TRACES),
        encoder="sem|dras",
        seed=r"\d+",
        agent="random|untrained",
    params:
        args=lambda wildcards: _sem_agent_args(wildcards.trace, wildcards.encoder, int(wildcards.seed)),
    log:
        "logs/sem/reference_{trace}_{encoder}_seed{seed}_{agent}.log",
    benchmark:
        "benchmarks/results/sem/reference_{trace}_{encoder}_seed{seed}_{agent}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=lambda wildcards: 8000 if wildcards.encoder == "dras" else 2000,
        runtime=lambda wildcards: 30 if wildcards.encoder == "dras" else 10,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem reference {params.args} --agent {wildcards.agent} --threads {threads} "
        "--out-dir results/sem/agents/{wildcards.trace}/{wildcards.encoder}/seeds/{wildcards.seed}/ref_{wildcards.agent} "
        "> {log:q} 2>&1"


rule sem_window:
    # Fig. 6: DRAS training time on the same denser jobs for each window W
    input:
        unpack(lambda wildcards: _sem_split(SEM_WINDOWS["trace"])),
    output:
        "results/sem/window/dras_w{window}/window.json",
    wildcard_constraints:
        window=r"\d+",
    params:
        args=lambda wildcards: _sem_agent_args(SEM_WINDOWS["trace"], "dras"),
        jobs=SEM_WINDOWS.get("jobs", 1000),
        density=SEM_WINDOWS.get("density", 1),
    log:
        "logs/sem/window_dras_w{window}.log",
    benchmark:
        "benchmarks/results/sem/window_dras_w{window}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=8000,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem window {params.args} --window {wildcards.window} --jobs {params.jobs} "
        "--density {params.density} --threads {threads} "
        "--out-dir results/sem/window/dras_w{wildcards.window} > {log:q} 2>&1"


rule sem_heuristics:
    input:
        unpack(lambda wildcards: _sem_split(wildcards.trace)),
    output:
        "results/sem/agents/{trace}/heuristics.csv",
    wildcard_constraints:
        trace=alternatives(SEM_AGENT_TRACES),
    params:
        nodes=lambda wildcards: SEM_NETWORKS[wildcards.trace]["nodes"],
    log:
        "logs/sem/heuristics_{trace}.log",
    benchmark:
        "benchmarks/results/sem/heuristics_{trace}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem heuristics --split-dir results/workloads/sem/{wildcards.trace} --nodes {params.nodes} "
        "--out {output:q} > {log:q} 2>&1"


rule sem_scaling:
    input:
        unpack(lambda wildcards: _sem_split(SEM_SCALING["trace"])),
    output:
        "results/sem/scaling/{encoder}_x{factor}/scaling.json",
    wildcard_constraints:
        encoder="sem|dras",
        factor=r"\d+",
    params:
        args=lambda wildcards: _sem_agent_args(SEM_SCALING["trace"], wildcards.encoder),
        jobs=SEM_SCALING.get("jobs", 1000),
    log:
        "logs/sem/scaling_{encoder}_x{factor}.log",
    benchmark:
        "benchmarks/results/sem/scaling_{encoder}_x{factor}.tsv"
    threads: SEM_THREADS
    resources:
        mem_mb=lambda wildcards: 2000 + (750 * int(wildcards.factor) if wildcards.encoder == "dras" else 0),  # 5.5 GB measured at x8
        runtime=lambda wildcards: 60 if wildcards.encoder == "dras" else 10,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem scaling {params.args} --factor {wildcards.factor} --jobs {params.jobs} --threads {threads} "
        "--out-dir results/sem/scaling/{wildcards.encoder}_x{wildcards.factor} > {log:q} 2>&1"


rule sem_agent_figures:
    input:
        tests=expand("results/sem/agents/{trace}/{encoder}/test.json", trace=SEM_AGENT_TRACES, encoder=["sem", "dras"]),
        budgets=expand("results/sem/agents/{trace}/{encoder}/budgets.csv", trace=SEM_AGENT_TRACES, encoder=["sem", "dras"]),
        seeds=expand("results/sem/agents/{trace}/{encoder}/seeds/{seed}/test.json", trace=SEM_AGENT_TRACES,
                     encoder=["sem", "dras"], seed=SEM_EXTRA_SEEDS),
        fingerprints=expand("results/sem/agents/{trace}/{encoder}/fingerprint.json", trace=SEM_AGENT_TRACES,
                            encoder=["sem", "dras"]),
        seed_fingerprints=expand("results/sem/agents/{trace}/{encoder}/seeds/{seed}/fingerprint.json",
                                 trace=SEM_AGENT_TRACES, encoder=["sem", "dras"], seed=SEM_EXTRA_SEEDS),
        references=expand("results/sem/agents/{trace}/{encoder}/ref_{agent}/test.json", trace=SEM_AGENT_TRACES,
                          encoder=["sem", "dras"], agent=SEM_REFERENCES),
        seed_references=expand("results/sem/agents/{trace}/{encoder}/seeds/{seed}/ref_{agent}/test.json",
                               trace=SEM_AGENT_TRACES, encoder=["sem", "dras"], seed=SEM_EXTRA_SEEDS,
                               agent=SEM_REFERENCES),
        variants=[f"results/sem/agents/{run}/test.json" for run in SEM_VARIANT_RUNS],
        sampled=expand("results/sem/agents/{trace}/{encoder}/test_sampled.csv", trace=SEM_AGENT_TRACES,
                       encoder=["sem", "dras"]),
        windows=expand("results/sem/window/dras_w{window}/window.json", window=SEM_WINDOWS.get("windows", [])),
        heuristics=expand("results/sem/agents/{trace}/heuristics.csv", trace=SEM_AGENT_TRACES),
        scaling=[f"results/sem/scaling/{enc}_x{f}/scaling.json" for enc, f in SEM_SCALING_POINTS],
        trace_claims=rules.sem_trace_figures.output.claims if SEM_TRACES else [],
        values=package_file(paper_values_path("sem")),
    output:
        table4=figure("sem", "table4_networks"),
        table4_md="figures/sem/table4_networks.md",
        fig8=figure("sem", "fig8_convergence"),
        fig9=figure("sem", "fig9_kiviat"),
        fig9_md="figures/sem/fig9_kiviat.md",
        fig10=figure("sem", "fig10_train_inference_time"),
        fig11=figure("sem", "fig11_scaling"),
        fig3=figure("sem", "fig3_dras_cost_vs_size"),
        fig6=figure("sem", "fig6_dras_cost_vs_window"),
        budget=figure("sem", "budget"),
        claims_budget="results/sem/claims_budget.csv",
        claims="results/sem/claims.csv",
        fingerprints="results/sem/fingerprints.csv",
    params:
        caption="SEM sections 4-5: " + "; ".join(f"{t.name}: {t.caption}" for t in SEM_FIGURES.TARGETS if t.rule == "sem_agent_figures" and t.kind != "claims"),
        networks=_json.dumps({t: SEM_NETWORKS[t] for t in SEM_AGENT_TRACES}, sort_keys=True),
        scaling=[f"results/sem/scaling/{enc}_x{f}" for enc, f in SEM_SCALING_POINTS],
        windows=[f"results/sem/window/dras_w{w}" for w in SEM_WINDOWS.get("windows", [])],
        trace_claims=f"--trace-claims {rules.sem_trace_figures.output.claims}" if SEM_TRACES else "",
        conv={"tolerance": 0.05, "window": 10, "saturation": 0.99, **SEM_AGENTS.get("convergence", {})},
        traces=" ".join(SEM_AGENT_TRACES),
    log:
        "logs/sem/agent_figures.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl sem agent-figures --agents-dir results/sem/agents --traces {params.traces} "
        "--networks '{params.networks}' --scaling {params.scaling} --windows {params.windows} {params.trace_claims} "
        "--tolerance {params.conv[tolerance]} --window {params.conv[window]} --saturation {params.conv[saturation]} "
        "--figures-dir figures/sem --claims {output.claims:q} --fingerprints {output.fingerprints:q} > {log:q} 2>&1"


if SEM_TRACES:
    register_targets("sem", SEM_FIGURES.TARGETS, rules)
    register("sem", rules.sem_agent_figures.output.fingerprints)  # the report's "what the agents learned"
    REPORT_SECTIONS.extend([rules.sem_trace_figures.output.table2_md, rules.sem_trace_figures.output.table3_md,
                            rules.sem_agent_figures.output.table4_md, rules.sem_agent_figures.output.fig9_md])


# The hyperparameter study behind the tuned agent (issue 69; sem.tune, beyond the paper): Optuna over
# REINFORCE's values, the network's width and the episode length for one encoder's agent on one trace,
# trained as sem_train_agent trains it on the first jobs of the trace's training part and scored by
# greedy play on its validation part (never the test part). Built only where the config has sem.tune
# (the smoke scale, config/tune.yaml); no other rule reads the block, so configuring a study reruns nothing else.
SEM_CONFIG = cfg("sem", default={})
if "tune" in SEM_CONFIG:
    from schedrl.papers.sem import experiments as SEM_EXPERIMENTS
    from schedrl.papers.sem import tuning as SEM_TUNING

    try:
        SEM_EXPERIMENTS.check_spec(SEM_CONFIG)
    except ConfigError as _exc:
        sys.stderr.write(f"schedrl: config: {_exc}\n")
        sys.exit(2)
    SEM_TUNE = SEM_CONFIG["tune"]
    SEM_TUNE_TRACE = SEM_TUNE.get("trace", (SEM_AGENT_TRACES or list(SEM_NETWORKS))[0])

    rule sem_tune:
        input:
            train=_sem_split(SEM_TUNE_TRACE)["train"],
            val=_sem_split(SEM_TUNE_TRACE)["val"],
            manifest=_sem_split(SEM_TUNE_TRACE)["manifest"],
        output:
            trials="results/tuned/sem/trials.csv",
            recipe="results/tuned/sem/recipe.yml",
            references="results/tuned/sem/references.csv",
        params:
            spec=study_spec_json(SEM_CONFIG, SEM_TUNING.STUDY_PINS),
        log:
            "logs/tuned/sem.log",
        benchmark:
            "benchmarks/results/tuned/sem.tsv"
        threads: 1
        resources:
            # two seeds' agents one after the other; DRAS's Theta network (21.9 M parameters) with Adam ~1 GB
            mem_mb=lambda wildcards: 6000 if SEM_TUNE.get("encoder", "sem") == "dras" else 2000,
            runtime=int(SEM_TUNE["budget_core_h"] * 60 * 2) + 10,
        conda:
            CONDA_ENV
        shell:
            "schedrl tune sem --spec {params.spec:q} --out results/tuned/sem --threads {threads} > {log:q} 2>&1"

    register("sem", rules.sem_tune.output.recipe)
