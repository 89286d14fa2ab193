# Shared by every rule file (config validation, target registry, path helpers) and home of the
# input functions of the rule files (`snakemake --lint` wants functions kept apart from rules).
import json
import re
import shlex
import sys
from pathlib import Path

from schedrl.config import validate_config
from schedrl.errors import ConfigError

try:
    validate_config(
        config,
        Path(workflow.basedir) / "workflow" / "schemas",
        # the merged config: name every file that went into it
        source="config from " + ", ".join(str(f) for f in workflow.configfiles),
    )
except ConfigError as _exc:
    sys.stderr.write(f"schedrl: {_exc}\n")
    sys.exit(2)

PAPERS = ("sem", "mdp", "deeprm", "mrsch", "runtime")
# Each rule file registers the final files of its paper (figures, tables, claims) here;
# the aggregate rules in the Snakefile and `rule all` collect them.
TARGETS = {name: [] for name in (*PAPERS, "workloads", "report")}
# Machine-readable claims tables (claim, paper value, ours, verdict), read by the report.
CLAIMS = []
# Markdown tables (figures/<paper>/*.md) that the report includes under their paper.
REPORT_SECTIONS = []

# Every rule runs in the project environment (`--use-conda` builds it from envs/schedrl.yaml).
CONDA_ENV = "../../envs/schedrl.yaml"


def register(group, *paths):
    """Add final outputs to a paper's (or the workloads and report groups) target list."""
    TARGETS[group].extend(str(p) for p in paths)


def figure(paper, name):
    """The three files of one figure target: figures/<paper>/<name>.{png,pdf,csv}.

    Named (png, pdf, csv): a rule whose output lists it unnamed gets {output.png} etc.; under a
    named output (fig5=figure(...)) the three files go by that one name. A rule may list at most
    one figure unnamed: a second would silently take over the names png, pdf and csv.
    """
    stem = f"figures/{paper}/{name}"
    return multiext(stem, png=".png", pdf=".pdf", csv=".csv")


def paper_targets(group):
    return list(TARGETS[group])


def all_targets():
    seen, out = set(), []
    for group in TARGETS.values():
        for path in group:
            if path not in seen:
                seen.add(path)
                out.append(path)
    return out


def cfg(*keys, default=None):
    """config[k1][k2]... or default when any key is absent."""
    node = config
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def alternatives(names):
    """Regex matching exactly one of names (for wildcard_constraints); matches nothing when empty."""
    return "|".join(re.escape(n) for n in names) or "no-such-name"


# ------------------------------------------------------------------ input functions of rule files
# They run when the DAG is built, after every rule file is included, so they may use the
# constants the rule files define (WL_*, SEM_*, DEEPRM*, DX).


# workloads.smk
def wl_trace_input(wildcards):
    """The real trace file when one of traces.dirs holds it; [] (stand-in generated) otherwise."""
    name = WL_TRACES[wildcards.trace]["file"]
    for folder in WL_TRACE_DIRS:
        for candidate in (name, name[:-3] if name.endswith(".gz") else f"{name}.gz"):
            path = Path(folder) / candidate
            if path.is_file():
                return [str(path)]
    return []


# sem.smk
def sem_trace_file(wildcards):
    """The trace file when one of traces.dirs holds it; [] (stand-in workload) otherwise."""
    from schedrl.workloads.traces import find_trace

    path = find_trace(SEM_TRACES[wildcards.trace]["file"], SEM_TRACE_DIRS)
    return [str(path)] if path is not None else []


# deeprm.smk
def deeprm_env_args(wildcards):
    """--env-kwarg options of a training run (variant, objective, training rate and job sets)."""
    kwargs = DX.env_kwargs(DEEPRM, wildcards.variant, wildcards.objective)
    return " ".join(shlex.quote(f"--env-kwarg={k}={json.dumps(v)}") for k, v in sorted(kwargs.items()))


def deeprm_figure_inputs(wildcards):
    return [str(p) for p in DX.figure_inputs(DEEPRM, DEEPRM_ROOT, wildcards.fig)]


def deeprm_claims_inputs(wildcards):
    files = []
    for variant in DEEPRM["variants"]:
        for algo, objective, seed in DX.agent_runs(DEEPRM, variant):
            paths = DX.eval_paths(DX.run_dir(DEEPRM_ROOT, variant, algo, objective, seed))
            files += [str(paths["episodes"]), str(paths["jobs"])]
        files += [str(DX.eval_paths(DX.baseline_dir(DEEPRM_ROOT, variant, b))["episodes"]) for b in DEEPRM["baselines"]]
    return files + [str(p) for p in DX.deeprm_agent_paths(DEEPRM, DEEPRM_ROOT)]  # DeepRM's own agent, per rate


def deeprm_timing_inputs(wildcards):
    return [str(DX.run_dir(DEEPRM_ROOT, v, a, o, s) / "timing.json")
            for v in DEEPRM["variants"] for a, o, s in DX.agent_runs(DEEPRM, v)] + \
        [str(p) for p in DX.deeprm_agent_paths(DEEPRM, DEEPRM_ROOT, "timing")]
