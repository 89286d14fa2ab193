# Workload generation and trace analysis rules (issue: Workloads).
#
# Generated workloads (results/workloads/):
#   <preset>.swf                          Lublin presets (lublin256, wl1, wl2, theta_like, datastar_like)
#   runtime/{wl}_{wra}{half}.swf          runtime paper: wl1/wl2 x WRA 100/050/rnd x half a/b
#   traces/<trace>.swf                    a real trace, cleaned (or its stand-in when missing)
#   mrsch/S<k>.swf, mrsch/S<k>/<part>.swf MRSch S1-S10 and their 3.5 month / 2 week / rest split
#   sem/<trace>/<part>.swf                SEM split: train (episodes) / val / test
# Figures: figures/workloads/<preset>.png, trace_<trace>.png and mrsch_scenarios.png.
# Not part of 'all': download_trace (data/raw/<file>, needs internet).
# Helpers alternatives(), trace_file() and trace_stand_in_args() are in common.smk.

from schedrl.workloads.extend import SCENARIOS as _WL_SCENARIOS, WRA_CHOICES as _WL_WRA
from schedrl.workloads.traces import CATALOG as _WL_CATALOG

WL_CFG = cfg("workloads", default={})
WL_PRESETS = WL_CFG.get("presets", {})
WL_TRACES = WL_CFG.get("traces", {})
WL_TRACE_DIRS = cfg("traces", "dirs", default=[])
WL_CLEAN = WL_CFG.get("clean", {})
WL_MRSCH = WL_CFG.get("mrsch", {})
WL_SEM = WL_CFG.get("sem", {})
WL_SEED = config["seed"]
WL_RUNTIME = ("wl1", "wl2")

# Say it on the console, not only in a log, when a stand-in will replace a missing trace.
for _key, _trace in WL_TRACES.items():
    if not trace_file(_trace["file"], WL_TRACE_DIRS):
        sys.stderr.write(f"schedrl: warning: trace {_trace['file']} ({_key}) not found in "
                         f"{', '.join(map(str, WL_TRACE_DIRS)) or '(no traces.dirs)'}: a synthetic stand-in "
                         "replaces it; results built on it are not comparable with the paper's\n")


rule workload_preset:
    output:
        "results/workloads/{preset}.swf",
    wildcard_constraints:
        preset=alternatives(WL_PRESETS),
    params:
        n_jobs=lambda wildcards: (
            f"--n-jobs {WL_PRESETS[wildcards.preset]}" if WL_PRESETS[wildcards.preset] else ""
        ),
        seed=WL_SEED,
    log:
        "logs/workloads/preset_{preset}.log",
    benchmark:
        "benchmarks/results/workloads/preset_{preset}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload generate --preset {wildcards.preset} {params.n_jobs} --seed {params.seed} "
        "--out {output:q} 2> {log:q}"


# The runtime paper's 12 files: one 2000-job base per workload (same seed for every WRA), then
# run_time = req_time x WRA, then jobs 1-1000 (a) or 1001-2000 (b). Same size at every scale.
# One CLI call writes a workload's six files (they share the base).
rule workload_runtime:
    output:
        expand("results/workloads/runtime/{{wl}}_{wra}{half}.swf", wra=_WL_WRA, half=("a", "b")),
    wildcard_constraints:
        wl="wl1|wl2",
    params:
        wras=" ".join(_WL_WRA),
        seed=WL_SEED,
    log:
        "logs/workloads/runtime_{wl}.log",
    benchmark:
        "benchmarks/results/workloads/runtime_{wl}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload generate --preset {wildcards.wl} --wra {params.wras} --half a b "
        "--seed {params.seed} --out-dir results/workloads/runtime 2> {log:q}"


rule workload_trace:
    input:
        trace=lambda wildcards: trace_file(WL_TRACES[wildcards.trace]["file"], WL_TRACE_DIRS),
    output:
        "results/workloads/traces/{trace}.swf",
    wildcard_constraints:
        trace=alternatives(WL_TRACES),
    params:
        file=lambda wildcards: WL_TRACES[wildcards.trace]["file"],
        months=lambda wildcards: WL_TRACES[wildcards.trace].get("months", 0),
        stand_in=lambda wildcards: trace_stand_in_args(WL_TRACES[wildcards.trace]),
        dirs=WL_TRACE_DIRS,
        stand_in_jobs=WL_CFG.get("stand_in_jobs", 20000),
        oversize=WL_CLEAN.get("oversize", "drop"),
        over_request=WL_CLEAN.get("over_request", "keep"),
        seed=WL_SEED,
    log:
        "logs/workloads/trace_{trace}.log",
    benchmark:
        "benchmarks/results/workloads/trace_{trace}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload trace {params.file:q} --dirs {params.dirs:q} --months {params.months} "
        "--stand-in-jobs {params.stand_in_jobs} {params.stand_in} --oversize {params.oversize} "
        "--over-request {params.over_request} --seed {params.seed} --out {output:q} 2> {log:q}"


# MRSch Table III (S1-S5) and the power case study (S6-S10) on the Theta trace, each with its
# 3.5 month / 2 week / rest split, in one CLI call (the scenarios share the base trace).
WL_MRSCH_SCENARIOS = WL_MRSCH.get("scenarios", list(_WL_SCENARIOS))


rule workload_mrsch:
    input:
        "results/workloads/traces/{}.swf".format(WL_MRSCH.get("trace", "theta")),
    output:
        expand("results/workloads/mrsch/{scenario}.swf", scenario=WL_MRSCH_SCENARIOS),
        expand(
            "results/workloads/mrsch/{scenario}/{part}",
            scenario=WL_MRSCH_SCENARIOS,
            part=("train.swf", "val.swf", "test.swf", "split.json"),
        ),
    params:
        scenarios=" ".join(WL_MRSCH_SCENARIOS),
        train_months=WL_MRSCH.get("train_months", 3.5),
        val_days=WL_MRSCH.get("val_days", 14),
        total_months=WL_MRSCH.get("total_months", 5),
        bb_sizes=WL_MRSCH.get("bb_sizes", "uniform"),
        seed=WL_SEED,
    log:
        "logs/workloads/mrsch.log",
    benchmark:
        "benchmarks/results/workloads/mrsch.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload extend {input:q} --scenario {params.scenarios} --seed {params.seed} "
        "--bb-sizes {params.bb_sizes} "
        "--out-dir results/workloads/mrsch --mrsch-split --train-months {params.train_months} "
        "--val-days {params.val_days} --total-months {params.total_months} 2> {log:q}"


rule workload_mrsch_figure:
    input:
        expand("results/workloads/mrsch/{scenario}.swf", scenario=WL_MRSCH_SCENARIOS),
    output:
        figure("workloads", "mrsch_scenarios"),
    params:
        caption="MRSch workloads S1-S10: burst-buffer and power demand of each scenario",
    log:
        "logs/workloads/figure_mrsch_scenarios.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload plot-scenarios {input:q} --out {output.png:q} 2> {log:q}"


rule workload_sem_split:
    input:
        "results/workloads/traces/{trace}.swf",
    output:
        train="results/workloads/sem/{trace}/train.swf",
        val="results/workloads/sem/{trace}/val.swf",
        test="results/workloads/sem/{trace}/test.swf",
        manifest="results/workloads/sem/{trace}/split.json",
    wildcard_constraints:
        trace=alternatives(WL_TRACES),
    params:
        train_jobs=WL_SEM.get("train_jobs", 60000),
        episode_jobs=WL_SEM.get("episode_jobs", 600),
        val_jobs=WL_SEM.get("val_jobs", 1200),
        test_jobs=WL_SEM.get("test_jobs", 6000),
        fit=WL_SEM.get("fit", "shrink"),
    log:
        "logs/workloads/sem_split_{trace}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload split {input:q} --scheme sem --train-jobs {params.train_jobs} "
        "--episode-jobs {params.episode_jobs} --val-jobs {params.val_jobs} --test-jobs {params.test_jobs} "
        "--fit {params.fit} --out-dir results/workloads/sem/{wildcards.trace} 2> {log:q}"


rule workload_figure:
    input:
        "results/workloads/{preset}.swf",
    output:
        figure("workloads", "{preset}"),
    params:
        caption=lambda wildcards: f"Lublin-Feitelson preset {wildcards.preset}: sizes, runtimes, inter-arrival times and load",
    wildcard_constraints:
        preset=alternatives(WL_PRESETS),
    log:
        "logs/workloads/figure_{preset}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload plot {input:q} --out {output.png:q} --title 'Lublin preset {wildcards.preset}' "
        "2> {log:q}"


rule workload_trace_figure:
    input:
        "results/workloads/traces/{trace}.swf",
    output:
        figure("workloads", "trace_{trace}"),
    params:
        caption=lambda wildcards: f"Trace {wildcards.trace} (or its announced stand-in): sizes, runtimes, inter-arrival times and load",
    wildcard_constraints:
        trace=alternatives(WL_TRACES),
    log:
        "logs/workloads/figure_trace_{trace}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload plot {input:q} --out {output.png:q} --title 'Trace {wildcards.trace}' 2> {log:q}"


# For users with internet access only (never in CI, not part of 'all'):
#   snakemake --cores 1 data/raw/SDSC-DS-2004-2.1-cln.swf.gz
rule download_trace:
    output:
        "data/raw/{file}",
    wildcard_constraints:
        file=alternatives(_WL_CATALOG),
    params:
        url=lambda wildcards: _WL_CATALOG[wildcards.file].url,
        sha256=lambda wildcards: _WL_CATALOG[wildcards.file].sha256,
    log:
        "logs/workloads/download_{file}.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    conda:
        CONDA_ENV
    shell:
        "schedrl workload download {wildcards.file} --url {params.url:q} --sha256 {params.sha256} "
        "--out {output:q} 2> {log:q}"


register(
    "workloads",
    *expand("results/workloads/{preset}.swf", preset=WL_PRESETS),
    *expand("figures/workloads/{preset}.png", preset=WL_PRESETS),
    *expand("results/workloads/runtime/{wl}_{wra}{half}.swf", wl=WL_RUNTIME, wra=_WL_WRA, half=("a", "b")),
    *expand("figures/workloads/trace_{trace}.png", trace=WL_TRACES),
)
if WL_MRSCH:
    register(
        "workloads",
        *expand("results/workloads/mrsch/{scenario}/split.json", scenario=WL_MRSCH_SCENARIOS),
        "figures/workloads/mrsch_scenarios.png",
    )
if WL_SEM:
    register(
        "workloads",
        *expand("results/workloads/sem/{trace}/split.json", trace=WL_SEM.get("traces", list(WL_TRACES))),
    )
