# schedrl: one DAG reproducing five papers on RL job scheduling. See README.md.
#   snakemake --cores 8 all                                   default scale
#   snakemake all --cores 2 --configfile config/smoke.yaml    CI scale
#   snakemake all --profile workflow/profiles/slurm --configfile config/paper.yaml
from snakemake.utils import min_version

min_version("9.0")

# Snakemake's own message for a broken YAML file names neither the file nor the line: check ours
# first (for a file given with --configfile, `schedrl config FILE` names the line).
import sys

from schedrl.config import load_yaml
from schedrl.errors import SchedrlError

try:
    load_yaml("config/config.yaml")
except SchedrlError as exc:
    sys.stderr.write(f"schedrl: {exc}\n")
    sys.exit(2)


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


wildcard_constraints:
    name=r"[A-Za-z0-9_.\-]+",
    seed=r"\d+",


include: "workflow/rules/workloads.smk"
include: "workflow/rules/sem.smk"
include: "workflow/rules/mdp.smk"
include: "workflow/rules/deeprm.smk"
include: "workflow/rules/mrsch.smk"
include: "workflow/rules/runtime.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/normalised.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(),
    default_target: True


rule sem:
    input:
        paper_targets("sem"),


rule mdp:
    input:
        paper_targets("mdp"),


rule deeprm:
    input:
        paper_targets("deeprm"),


rule mrsch:
    input:
        paper_targets("mrsch"),


rule runtime:
    input:
        paper_targets("runtime"),


rule score:
    input:
        paper_targets("score"),


rule workloads:
    input:
        paper_targets("workloads"),


rule report:
    input:
        paper_targets("report"),
