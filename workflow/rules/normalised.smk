# One normalised score for every player of every paper (issue 68): random valid play = 0, the best
# heuristic of each workload = 1, aggregated per paper and player with rliable (IQM, mean, their
# stratified-bootstrap 95% intervals, P(improvement) over random valid play and over the best heuristic).
#   results/normalised/long.csv        every player's headline metric per workload and seed
#   results/normalised/scores.csv      the same rows with their workload's anchors and normalised score
#   results/normalised/aggregate.csv   per paper and player (the report's "Where RL stands"), with the
#                                      config's scale (default, smoke, paper-budget, paper) on every row
#   results/normalised/gaps.csv        players a paper cannot place yet, and why
#   results/normalised/where_rl_stands.png, profiles.png   the report's opening figures (+ .pdf, .csv)
# The papers' own reported agents are placed on the scale (role authors, "(placed)") from each paper's
# paper_values.yaml: their ratio to the paper's own heuristic, carried onto our best heuristic.
# It reads the evaluation outputs the claims read: the claims tables are its inputs.
import json

NORMALISED_PAPERS = [p for p in PAPERS if p in config]


rule normalised:
    input:
        claims=lambda wildcards: CLAIMS,
        extra=lambda wildcards: NORMALISED_INPUTS,
        # the papers' own reported agents are placed from their paper_values.yaml (issue 68 item 3)
        values=[package_file(paper_values_path(p)) for p in NORMALISED_PAPERS],
    output:
        long="results/normalised/long.csv",
        scores="results/normalised/scores.csv",
        aggregate="results/normalised/aggregate.csv",
        gaps="results/normalised/gaps.csv",
        # the report's opening figures (issue 68 items 2 and 5), each with its .pdf and plotted .csv
        figure="results/normalised/where_rl_stands.png",
        profiles="results/normalised/profiles.png",
    params:
        papers=",".join(NORMALISED_PAPERS),
        config=json.dumps({p: config[p] for p in NORMALISED_PAPERS}, separators=(",", ":")),
        scale=config["scale"],
        reps=config.get("normalised", {}).get("reps", 2000),
    log:
        "logs/normalised/normalised.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        CONDA_ENV
    shell:
        "schedrl normalised --paper {params.papers} --config-json {params.config:q} --scale {params.scale:q} "
        "--reps {params.reps} --out-dir results/normalised > {log:q} 2>&1"


register("report", *rules.normalised.output)
