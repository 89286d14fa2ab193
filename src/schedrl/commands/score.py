"""``schedrl score``: a user's policy beside each paper's baselines and trained agents."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from schedrl.errors import ConfigError
from schedrl.papers import PAPERS

SCALES = {"smoke": "config/smoke.yaml", "default": None, "paper": "config/paper.yaml"}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score",
        help="score your own scheduler on the papers' held-out workloads, beside their baselines and agents",
        description="Play POLICY (and any more) on each paper's held-out evaluation workloads with that "
        "paper's metrics and protocol; print a leaderboard per paper with 95% bootstrap intervals, beside "
        "the paper's baselines (played on the same jobs) and, where a finished run left results under "
        "results/<paper>/, the pipeline's trained agents. POLICY: module:name or path/file.py:name (a "
        "callable (observation, info) -> action, or a queue-order function (jobs) -> one key per waiting "
        "job, lower first), a registered heuristic (fcfs, sjf, saf, ...; packer, first_slot, random on DeepRM's grid), "
        "an SB3 model .zip or a run folder. See schedrl.score.policy for what 'info' and 'jobs' hold.",
    )
    p.add_argument("policies", nargs="+", metavar="POLICY", help="policy spec(s); NAME=SPEC sets the label")
    p.add_argument("--paper", default=",".join(PAPERS),
                   help="comma-separated papers (default: all five)")
    p.add_argument("--scale", choices=sorted(SCALES), default="smoke",
                   help="config scale whose held-out workloads are used (default: %(default)s)")
    p.add_argument("--config", nargs="+", default=None, metavar="YAML",
                   help="config file(s) merged over config/config.yaml instead of --scale's")
    p.add_argument("--config-json", default=None, metavar="JSON",
                   help="the whole (merged) config as JSON, as the Snakemake rule passes it")
    p.add_argument("--no-agents", action="store_true", help="do not read trained agents' results")
    p.add_argument("--out-dir", default=None, help="where leaderboard.csv/.md and index.html go "
                   "(default: results/score/cli)")
    p.add_argument("--section", default=None, help="also write the report's markdown section here")
    p.set_defaults(func=run)


def load_config(scale: str, files: list[str] | None = None) -> dict:
    """config/config.yaml with the scale's file (or ``files``) merged over it, as Snakemake merges."""
    from schedrl.config import load_yaml, merge_config, validate_config

    config = load_yaml("config/config.yaml") if Path("config/config.yaml").is_file() else {}
    extra = files if files is not None else ([SCALES[scale]] if SCALES[scale] else [])
    for name in extra:
        config = merge_config(config, load_yaml(name) or {})
    if not config:
        raise ConfigError("config/config.yaml not found: run this command from the pipeline's root (the checkout)")
    return validate_config(config, source="config from " + ", ".join(["config/config.yaml", *extra]))


def parse_specs(items) -> list[tuple[str | None, str]]:
    out = []
    for item in items:
        name, sep, spec = str(item).partition("=")
        out.append((name, spec) if sep and name and "/" not in name and ":" not in name else (None, str(item)))
    return out


def score(specs: list[tuple[str | None, str]], papers: list[str], config: dict, *, agents: bool = True,
          log=None):
    """Load the policies, run the suites; returns (leaderboard frame, notes, failures, seconds per paper)."""
    import pandas as pd

    from schedrl.score import board
    from schedrl.score.policy import PolicyError, load_policy
    from schedrl.score.suites import SUITES

    policies, failures, notes = [], [], []
    for name, spec in specs:
        try:
            policies.append(load_policy(spec, name))
        except PolicyError as exc:
            failures.append((name or spec, str(exc), ""))
    if not policies:
        return None, notes, failures, {}
    names = [p.name for p in policies]
    if len(set(names)) != len(names):
        raise ConfigError(f"two policies share a label ({', '.join(names)}); give NAME=SPEC")
    entries, seconds = [], {}
    for paper in papers:
        t0, c0 = time.perf_counter(), time.process_time()
        print(f"schedrl score: {paper} ...", file=log or sys.stderr, flush=True)
        result = SUITES[paper](config, policies, agents=agents)
        notes += result.misfit_lines() + result.notes
        played = {e.board for e in result.entries if e.role == "yours"}
        if played:  # only the boards that a user's policy played on
            entries += [e for e in result.entries if e.board in played]
        elif any("missing" in n for n in result.notes):  # its workloads are not built (named above)
            notes.append(f"{paper}: no leaderboard until its workloads are built (above)")
        else:
            notes.append(f"{paper}: no leaderboard (no policy fits its envs or every one failed)")
        failures += result.failures
        seconds[paper] = (time.perf_counter() - t0, time.process_time() - c0)
    frame = board.leaderboard(entries) if entries else pd.DataFrame(columns=board.COLUMNS)
    frame.attrs["fingerprints"] = policy_fingerprints(policies)
    return frame, notes, failures, seconds


def policy_fingerprints(policies):
    """One row per (policy, paper) it played: its behaviour fingerprint over the contested
    decisions (``schedrl.experiments.fingerprint``; actions only, no scores)."""
    import pandas as pd

    from schedrl.experiments.fingerprint import fingerprint

    rows = [{"policy": p.name, "paper": paper, **fingerprint(decisions)}
            for p in policies for paper, decisions in p.decisions.items() if decisions.total]
    return pd.DataFrame(rows)


def run(args) -> int:
    from schedrl.score import board

    papers = [p.strip() for p in args.paper.split(",") if p.strip()]
    unknown = [p for p in papers if p not in PAPERS]
    if unknown or not papers:
        raise ConfigError(f"--paper: unknown paper(s) {', '.join(unknown) or '(none)'} (choose from: {', '.join(PAPERS)})")
    if args.config_json:
        import json

        from schedrl.config import validate_config

        try:
            config = json.loads(args.config_json)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--config-json: not JSON ({exc})") from None
        validate_config(config, source="--config-json")
    else:
        config = load_config(args.scale, args.config)
    scale = config.get("scale", args.scale)
    frame, notes, failures, seconds = score(parse_specs(args.policies), papers, config, agents=not args.no_agents)
    for _, line, tb in failures:
        print(f"schedrl score: {line}", file=sys.stderr)
        if tb:
            print(tb.rstrip(), file=sys.stderr)
    if frame is None:
        print("schedrl score: no policy could be loaded; nothing scored", file=sys.stderr)
        return 2
    for line in notes:
        print(f"schedrl score: {line}")
    if len(frame):
        print(board.console(frame))
    out = Path(args.out_dir or "results/score/cli")
    paths = board.write(frame, notes, failures, out, scale=scale, section=args.section)
    cost = ", ".join(f"{p} {w:.0f} s ({c:.0f} s CPU)" for p, (w, c) in seconds.items())
    print(f"\nschedrl score: wrote {paths['csv']}, {paths['html']}; time per paper: {cost}")
    scored = set(frame.loc[frame["role"] == "yours", "policy"]) if len(frame) else set()
    return 0 if scored or not failures else 1
