# Rules for the runtime-prediction paper (runtime-prediction.txt; brief beside it).
#
# Table 4: utilisation of SJF, SJF w/ BF, FCFS, FCFS w/ BF (EASY) on the 12 Lublin workload halves
# (WL1/WL2 x WRA 100/050/RND x a/b) from rule workload_runtime (workloads.smk), beside the paper's.
#   results/runtime/heuristics/{workload}.csv           metrics per algorithm (schedrl heuristics run)
#   results/runtime/heuristics/{workload}/<alg>.csv      per-job schedules
#   figures/runtime/table4.{png,pdf,csv,md}             the table (csv = long table with paper + diff)
#   results/runtime/claims.csv                           claims (values, BF gains, winners)
RUNTIME = cfg("runtime", default={})
RUNTIME_T4 = RUNTIME.get("table4", {})
RUNTIME_NODES = RUNTIME.get("nodes", 256)
RUNTIME_ALGORITHMS = RUNTIME_T4.get("algorithms", ["sjf:none", "sjf:easy", "fcfs:none", "fcfs:easy"])
RUNTIME_WORKLOADS = [
    f"{wl}_{wra}{half}" for half in ("a", "b") for wl in ("wl1", "wl2") for wra in ("100", "050", "rnd")
]


wildcard_constraints:
    rt_workload="wl[12]_(100|050|rnd)[ab]",


rule runtime_heuristics:
    input:
        "results/workloads/runtime/{rt_workload}.swf",
    output:
        metrics="results/runtime/heuristics/{rt_workload}.csv",
        schedules=directory("results/runtime/heuristics/{rt_workload}"),
    params:
        nodes=RUNTIME_NODES,
        algorithms=RUNTIME_ALGORITHMS,
        sim_step=RUNTIME_T4.get("sim_step", 60),
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
        expand("results/runtime/heuristics/{rt_workload}.csv", rt_workload=RUNTIME_WORKLOADS),
    output:
        figure("runtime", "table4"),
        md="figures/runtime/table4.md",
        claims="results/runtime/claims.csv",
    params:
        algorithms=RUNTIME_ALGORITHMS,
        paper=[f"{w}={','.join(str(v) for v in vals)}" for w, vals in RUNTIME_T4.get("paper", {}).items()],
        tolerance=RUNTIME_T4.get("tolerance", 0.05),
        claims_note=f"our Lublin draws (seed {config['seed']}) differ from the paper's",
        title="Runtime paper Table 4: utilisation of classic heuristics",
        note=(
            f"Lublin workloads drawn by us (seed {config['seed']}): the paper's draws are not "
            "published, so values are compared within a tolerance and qualitatively. Utilisation = "
            "node-seconds used / node-seconds offered from the first submission to the last end "
            f"(brief 4.4); {RUNTIME_NODES} nodes; BF = EASY backfilling; "
            + (f"time-stepped simulation, Sim_Step {RUNTIME_T4.get('sim_step', 60)} s."
               if RUNTIME_T4.get("sim_step", 60) else "event-driven simulation.")
        ),
    log:
        "logs/runtime/table4.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl heuristics table {input:q} --algorithms {params.algorithms} --paper {params.paper} "
        "--paper-name runtime --claim-prefix table4 --tolerance {params.tolerance} "
        "--title {params.title:q} --note {params.note:q} --claims-note {params.claims_note:q} --out-png {output.png:q} "
        "--out-md {output.md:q} --claims-out {output.claims:q} 2> {log:q}"


register("runtime", *rules.runtime_table4.output)
CLAIMS.append(rules.runtime_table4.output.claims)
REPORT_SECTIONS.append(rules.runtime_table4.output.md)
