# Shared by every rule file (config validation, the target registry and generic helpers); they
# take what they need as arguments, never a rule file's globals. `snakemake --lint` wants functions
# kept apart from rules, so rule files call these, or their paper package, from lambdas.
import re
import sys
from pathlib import Path

from schedrl.config import study_spec_json, validate_config
from schedrl.errors import ConfigError
from schedrl.papers import PAPERS as _PAPER_TITLES

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

PAPERS = tuple(_PAPER_TITLES)  # schedrl.papers.PAPERS: the one list of papers
# Each rule file registers the final files of its paper (figures, tables, claims) here;
# the aggregate rules in the Snakefile and `rule all` collect them.
TARGETS = {name: [] for name in (*PAPERS, "workloads", "report")}
# Machine-readable claims tables (claim, paper value, ours, verdict), read by the report.
CLAIMS = []
# Evaluations the normalised scale reads beyond what the claims tables need (e.g. uniform play).
NORMALISED_INPUTS = []
# Markdown tables (figures/<paper>/*.md) that the report includes under their paper.
REPORT_SECTIONS = []

# Every rule runs in the project environment (`--use-conda` builds it from envs/schedrl.yaml).
CONDA_ENV = "../../envs/schedrl.yaml"
# the learning probes of the papers' own recipes (`schedrl probe`): the claims tables of deeprm, mdp, mrsch
# and runtime mark the RL claims of a run whose trainers fail it, so they are an input of those claims rules
# (sem's claims come from its agent-figures step, without a spec; its REINFORCE passes the probe)
RECIPE_PROBES = "config/recipe-probes.csv"


def register(group, *paths):
    """Add final outputs to a paper's (or the workloads and report groups) target list."""
    TARGETS[group].extend(str(p) for p in paths)


def figure(paper, name):
    """The three files of one figure target: figures/<paper>/<name>.{png,pdf,csv}, shown in
    Snakemake's own report (``snakemake --report``) under the paper's category; the rule's
    ``params.caption`` is its caption (workflow/report/figure.rst).

    Named (png, pdf, csv): a rule whose output lists it unnamed gets {output.png} etc.; under a
    named output (fig5=figure(...)) the three files go by that one name. A rule may list at most
    one figure unnamed: a second would silently take over the names png, pdf and csv.
    """
    stem = f"figures/{paper}/{name}"
    return report(multiext(stem, png=".png", pdf=".pdf", csv=".csv"), caption="../report/figure.rst",
                  category=paper, labels={"figure": name})


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


def package_file(path):
    """A data file of the installed package (hyperparameter YAML, paper_values.yaml) as a rule
    input: relative to the workflow when the package lives inside it (editable install)."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(Path(workflow.basedir).resolve()))
    except ValueError:
        return str(path)


def paper_values_path(paper):
    from schedrl.papers.values import values_path

    return values_path(paper)


def _output_regex(pattern):
    parts = re.split(r"\{[^}]+\}", str(pattern))
    return re.compile(".+".join(re.escape(p) for p in parts) + "$")


def register_targets(paper, targets, defined):
    """Register a paper package's TARGETS (figures, tables, claims) with its aggregate rule.

    Each target names the rule that builds it; a missing rule, or a rule whose outputs cannot
    produce the target's files, stops the workflow with one line (the two-hop promise of
    ``schedrl figures`` would be broken).
    """
    for target in targets:
        built_by = getattr(defined, target.rule, None)
        if built_by is None:
            sys.stderr.write(f"schedrl: {paper} target {target.name}: no rule '{target.rule}'\n")
            sys.exit(2)
        patterns = [_output_regex(o) for o in built_by.output]
        for path in target.files():
            if not any(p.match(path) for p in patterns):
                sys.stderr.write(f"schedrl: {paper} target {path}: not an output of rule {target.rule}\n")
                sys.exit(2)
        register(paper, *target.files())
        if target.kind == "claims":
            CLAIMS.extend(target.files())

def trace_file(name, dirs):
    """[path] of trace file ``name`` when one of ``dirs`` holds it; [] (a stand-in is generated) otherwise."""
    from schedrl.workloads.traces import find_trace

    path = find_trace(name, dirs)
    return [str(path)] if path is not None else []


def trace_stand_in_args(trace):
    """--stand-in / --stand-in-nodes options of 'schedrl workload trace' for a workloads.traces entry."""
    args = [f"--stand-in {trace['stand_in']}"] if "stand_in" in trace else []
    return " ".join(args + ([f"--stand-in-nodes {trace['nodes']}"] if "nodes" in trace else []))
