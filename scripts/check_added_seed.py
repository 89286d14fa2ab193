"""After a run of the DAG: would adding a seed rerun any job of the runs there are?

    python scripts/check_added_seed.py --configfile config/smoke.yaml [TARGET ...]

Two dry runs of the targets (default ``all``): the config as it is, then with one more seed for
every paper that trains agents (``deeprm.seeds`` and ``deeprm.deeprm_agent.seeds``, ``mdp.seeds``,
``mrsch.extra_seeds``, ``runtime.agents.seeds`` and a Lublin draw, ``sem.agents.extra_seeds``). A job
whose reason is changed params in the second dry run and not in the first is one that the new seed
alone would rerun. That is expected of the rules over every run (claims, figures, the references
played over all runs); a job of one run (a training, a run's evaluation or checkpoints, its seats in
the references) is an error: the rules over one run take their paper's ``run_spec``, so a new seed
leaves them as they were (``make smoke`` runs this after the smoke DAG); so is a hyperparameter study's
(``<paper>_tune``: give its recipe files as targets). Exit 1 lists the offending jobs.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from schedrl.config import load_config  # noqa: E402

# a job of one run: its rule trains, evaluates or selects, or its wildcards name a seed; a study (<paper>_tune,
# hours at config/tune.yaml) reads none of the runs' seeds either (its spec pins them: config.study_spec_json)
ONE_RUN_RULE = re.compile(r"_(train|evaluate|select)|_tune$")
SEED_WILDCARDS = ("seed", "mrsch_seed", "rt_rep")
PARAMS = "Params have changed"


def added_seed(config: dict) -> dict:
    """The overlay that adds one seed to every paper's agents (papers without agents left alone)."""
    def more(seeds):
        return [*seeds, max(seeds) + 1]

    over: dict = {}
    if "deeprm" in config:
        d = config["deeprm"]
        over["deeprm"] = {"seeds": more(d["seeds"])}
        if (d.get("deeprm_agent") or {}).get("seeds"):
            over["deeprm"]["deeprm_agent"] = {"seeds": more(d["deeprm_agent"]["seeds"])}
    if "mdp" in config:
        over["mdp"] = {"seeds": more(config["mdp"]["seeds"])}
    if "mrsch" in config:
        m = config["mrsch"]
        taken = [int(m.get("agent_seed", m["seed"])), *m.get("extra_seeds", [])]
        over["mrsch"] = {"extra_seeds": [*m.get("extra_seeds", []), max(taken) + 1]}
    agents = (config.get("sem") or {}).get("agents")
    if agents:
        taken = [int(agents.get("seed", 0)), *agents.get("extra_seeds", [])]
        over["sem"] = {"agents": {"extra_seeds": [*agents.get("extra_seeds", []), max(taken) + 1]}}
    if (config.get("runtime") or {}).get("agents"):
        a = config["runtime"]["agents"]
        over["runtime"] = {"agents": {"seeds": more(a["seeds"]), "draws": more(a.get("draws", [0]))}}
    return over


def flat(over: dict, prefix: str = "") -> list[tuple[str, list]]:
    """``[("deeprm.seeds", [0, 1]), ("deeprm.deeprm_agent.seeds", [0, 1, 2]), ...]``"""
    out = []
    for key, value in over.items():
        out += flat(value, f"{prefix}{key}.") if isinstance(value, dict) else [(f"{prefix}{key}", value)]
    return out


def jobs(text: str) -> list[dict]:
    """The jobs of a Snakemake dry run's output: rule, reason, wildcards and output per job."""
    out, job = [], None
    for line in text.splitlines():
        head = re.match(r"^(?:local)?rule (\S+):$", line)
        if head:
            job = {"rule": head.group(1), "reason": "", "wildcards": "", "output": ""}
            out.append(job)
            continue
        field = re.match(r"^\s+(reason|wildcards|output): (.*)$", line)
        if job is not None and field:
            job[field.group(1)] = field.group(2)
    return out


def one_run(job: dict) -> bool:
    names = {w.split("=", 1)[0].strip() for w in job["wildcards"].split(",") if "=" in w}
    return bool(ONE_RUN_RULE.search(job["rule"])) or bool(names & set(SEED_WILDCARDS))


def dry_run(targets: list[str], configfiles: list[str]) -> list[dict]:
    cmd = ["snakemake", *targets, "-n", "--configfile", *configfiles]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"check_added_seed: {' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return [j for j in jobs(done.stdout + done.stderr) if PARAMS in j["reason"]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", default=["all"], help="Snakemake targets (default: all)")
    ap.add_argument("--configfile", default="config/config.yaml", help="the config the DAG ran with")
    args = ap.parse_args(argv)
    over = added_seed(load_config(REPO / args.configfile))
    before = {(j["rule"], j["output"]) for j in dry_run(args.targets, [args.configfile])}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as fh:
        yaml.safe_dump(over, fh)
    try:
        after = [j for j in dry_run(args.targets, [args.configfile, fh.name]) if (j["rule"], j["output"]) not in before]
    finally:
        Path(fh.name).unlink()
    bad = [j for j in after if one_run(j)]
    seeds = ", ".join(f"{k} {v}" for k, v in flat(over))
    rules = sorted({j["rule"] for j in after if not one_run(j)})
    print(f"adding a seed ({seeds}) reruns {len(after)} job(s) for changed params: "
          f"{len(after) - len(bad)} over every run ({', '.join(rules) or 'none'}), {len(bad)} of one run")
    for j in bad:
        print(f"  {j['rule']} ({j['wildcards'] or j['output']}): would rerun", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
