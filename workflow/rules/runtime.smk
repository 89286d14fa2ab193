# Rules for the runtime-prediction paper (runtime-prediction.txt; brief beside it). Code:
# schedrl.papers.runtime (experiments: workloads and algorithms; figures: table4 and TARGETS;
# claims; paper_values.yaml with Table 4).
#
# Table 4: utilisation of SJF, SJF w/ BF, FCFS, FCFS w/ BF (EASY) on the 12 Lublin workload halves
# (WL1/WL2 x WRA 100/050/RND x a/b) from rule workload_runtime (workloads.smk), beside the paper's.
#   results/runtime/heuristics/{workload}.csv           metrics per algorithm (schedrl heuristics run)
#   results/runtime/heuristics/{workload}/<alg>.csv      per-job schedules
#   figures/runtime/table4.{png,pdf,csv,md}             the table (csv = long table with paper + diff)
#   results/runtime/claims.csv                           claims (values, BF gains, winners)
from schedrl.papers.runtime import experiments as RX
from schedrl.papers.runtime import figures as RUNTIME_FIGURES

RUNTIME = cfg("runtime", default={})
RUNTIME_T4 = RUNTIME.get("table4", {})
RUNTIME_NODES = RUNTIME.get("nodes", 256)
RUNTIME_SIM_STEP = RUNTIME_T4.get("sim_step", 60)


wildcard_constraints:
    rt_workload=alternatives(RX.WORKLOADS),


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


rule runtime_table4:
    input:
        runs=[RX.heuristics_file(w) for w in RX.WORKLOADS],
        values=package_file(paper_values_path("runtime")),
    output:
        figure("runtime", "table4"),
        md="figures/runtime/table4.md",
        claims="results/runtime/claims.csv",
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
        "--seed {params.seed} --out-png {output.png:q} --claims-out {output.claims:q} > {log:q} 2>&1"


register_targets("runtime", RUNTIME_FIGURES.TARGETS, rules)
REPORT_SECTIONS.append(rules.runtime_table4.output.md)
