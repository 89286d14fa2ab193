# Rules for the 'sem' paper (sem-encoding.txt).
# Its issue has not landed yet: the aggregate target 'sem' is empty until it does.
# Input function sem_trace_file() is in common.smk.


# ---------------------------------------------------------------- trace analysis (section 3.1, 3.3)
# One folder per trace (recorded schedule, or FCFS + EASY where the log has no waits), then the
# paper's Fig. 5, Table 2, Table 3 and Fig. 7 with its numbers beside ours, and the claims table.
SEM_ANALYSIS = cfg("sem", "analysis", default={})
SEM_TRACES = SEM_ANALYSIS.get("traces", {})
SEM_TRACE_DIRS = cfg("traces", "dirs", default=[])


rule sem_analyze_trace:
    input:
        trace=sem_trace_file,
    output:
        summary="results/sem/analysis/{trace}/summary.json",
        cdf="results/sem/analysis/{trace}/running_cdf.csv",
        k_largest="results/sem/analysis/{trace}/k_largest.csv",
    wildcard_constraints:
        trace="|".join(SEM_TRACES) or "no-trace",
    params:
        file=lambda wildcards, input: input.trace or SEM_TRACES[wildcards.trace]["file"],
        dirs=SEM_TRACE_DIRS,
        spec=lambda wildcards: SEM_TRACES[wildcards.trace],
        max_jobs=SEM_ANALYSIS.get("max_jobs", 0),
        k_max=SEM_ANALYSIS.get("k_max", 80),
        stand_in_jobs=SEM_ANALYSIS.get("stand_in_jobs", 20000),
        seed=config["seed"],
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
        "schedrl analyze trace {params.file:q} --dirs {params.dirs:q} --name {wildcards.trace} "
        "--label {params.spec[label]:q} --nodes {params.spec[nodes]} --unit {params.spec[unit]} "
        "--schedule {params.spec[schedule]} --stand-in {params.spec[stand_in]} "
        "--stand-in-jobs {params.stand_in_jobs} --seed {params.seed} --max-jobs {params.max_jobs} "
        "--k-max {params.k_max} --out-dir results/sem/analysis/{wildcards.trace} > {log:q} 2>&1"


rule sem_trace_figures:
    input:
        expand("results/sem/analysis/{trace}/summary.json", trace=SEM_TRACES),
    output:
        fig5=figure("sem", "fig5_running_jobs_cdf"),
        table2=figure("sem", "table2_max_running"),
        table2_md="figures/sem/table2_max_running.md",
        table3=figure("sem", "table3_node_hour_loss"),
        table3_md="figures/sem/table3_node_hour_loss.md",
        fig7=figure("sem", "fig7_k_largest_coverage"),
        claims="results/sem/claims.csv",
    params:
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
        "schedrl analyze sem-figures {params.folders:q} --figures-dir figures/sem "
        "--claims {output.claims:q} > {log:q} 2>&1"


if SEM_TRACES:
    register("sem", *rules.sem_trace_figures.output)
    CLAIMS.append(rules.sem_trace_figures.output.claims)
    REPORT_SECTIONS.extend([rules.sem_trace_figures.output.table2_md, rules.sem_trace_figures.output.table3_md])
