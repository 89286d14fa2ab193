# Rules for the 'sem' paper (sem-encoding.txt). Code: schedrl.papers.sem (experiments: trace
# analysis; figures: one function per figure/table and TARGETS; claims; paper_values.yaml).
# The RL agents (Table 4, Figs. 8-11) come with their issue.


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
        claims="results/sem/claims.csv",
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


if SEM_TRACES:
    register_targets("sem", SEM_FIGURES.TARGETS, rules)
    REPORT_SECTIONS.extend([rules.sem_trace_figures.output.table2_md, rules.sem_trace_figures.output.table3_md])
