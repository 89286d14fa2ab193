# Shared by every rule file: config validation, target registry, path helpers.
import sys
from pathlib import Path

from schedrl.config import validate_config
from schedrl.errors import ConfigError

try:
    validate_config(config, Path(workflow.basedir) / "workflow" / "schemas", source="config")
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

SCHEDRL = "schedrl"
# Every rule runs in the project environment (`--use-conda` builds it from envs/schedrl.yaml).
CONDA_ENV = "../../envs/schedrl.yaml"


def register(group, *paths):
    """Add final outputs to a paper's (or the workloads and report groups) target list."""
    TARGETS[group].extend(str(p) for p in paths)


def figure(paper, name):
    """The three files of one figure target: figures/<paper>/<name>.{png,pdf,csv}."""
    stem = f"figures/{paper}/{name}"
    return multiext(stem, ".png", ".pdf", ".csv")


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
