"""SEM figures and tables: trace analysis (sem-encoding.txt Fig. 5, Table 2, Table 3, Fig. 7) and
the agents (Table 4, Figs. 8-11; inputs described above ``load_agents``).

Inputs are the per-trace analysis folders written by ``schedrl sem trace``
(``schedrl.papers.sem.experiments.analyze_trace``): ``summary.json``, ``running_cdf.csv`` and
``k_largest.csv``. One function per figure or table, named after its target; each shows the
paper's numbers (``paper_values.yaml``) beside ours. ``TARGETS`` lists every output.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.io import read_json, write_text
from schedrl.papers.sem import claims
from schedrl.papers.sem.agents import REFERENCES
from schedrl.papers.sem.claims import PAPER_COVERAGE, PAPER_LOSS_PCT, PAPER_TRACES, label_of
from schedrl.papers.targets import Target
from schedrl.plots import new_figure, save_figure
from schedrl.workloads.analysis import share_column


# --------------------------------------------------------------------------- loading
def load_analyses(folders: list[str | Path]) -> list[dict]:
    """Read each analysis folder into {"summary", "cdf", "k_largest"}, in the given order."""
    out = []
    for folder in folders:
        folder = Path(folder)
        out.append({
            "summary": read_json(folder / "summary.json"),
            "cdf": pd.read_csv(folder / "running_cdf.csv"),
            "k_largest": pd.read_csv(folder / "k_largest.csv"),
        })
    return out


# --------------------------------------------------------------------------- Fig. 5
def fig5_running_jobs_cdf(analyses: list[dict], png: str | Path) -> pd.DataFrame:
    """CDF of the number of running jobs over the trace period, one line per trace."""
    fig, ax = new_figure()
    rows = []
    for i, item in enumerate(analyses):
        s, cdf = item["summary"], item["cdf"]
        x = np.concatenate([[0], cdf["running"].to_numpy()])
        y = np.concatenate([[0.0], cdf["cdf"].to_numpy()])
        color = f"C{i}"
        ax.step(x, y, where="post", color=color, label=f"{label_of(s)} ours (max {s['max_running']})")
        paper = PAPER_TRACES.get(s["name"], {}).get("max_running")
        if paper is not None:
            ax.axvline(paper, color=color, ls=":", lw=1.2, label=f"{s['label']} paper max ({paper})")
        rows.append(cdf.assign(trace=s["name"], label=label_of(s), paper_max_running=paper))
    ax.set_xlabel("number of running jobs")
    ax.set_ylabel("CDF of trace period (fraction of time)")
    ax.set_ylim(0, 1.02)
    ax.set_title("Fig. 5: running jobs (SEM section 3.1)")
    ax.legend(fontsize=7, loc="lower right")
    data = pd.concat(rows, ignore_index=True)[["trace", "label", "running", "share", "cdf", "paper_max_running"]]
    save_figure(fig, png, data)
    return data


# --------------------------------------------------------------------------- Table 2
def table2_max_running(analyses: list[dict], png: str | Path) -> pd.DataFrame:
    """Maximum running jobs per trace, ours beside the paper's (Mira: paper only)."""
    rows = []
    seen = set()
    for item in analyses:
        s = item["summary"]
        paper = PAPER_TRACES.get(s["name"], {})
        seen.add(s["name"])
        rows.append({
            "workload": s["label"], "data": _data_note(s), "system_size": s["system_size"],
            "unit": s["unit"], "schedule": s["schedule"], "jobs_analysed": s["jobs_analysed"],
            "max_running_ours": s["max_running"], "p99_running_ours": s["p99_running"],
            "max_running_paper": paper.get("max_running"), "paper_period": paper.get("period", ""),
        })
    for name, paper in PAPER_TRACES.items():
        if name not in seen:
            rows.append({"workload": paper["label"], "data": "not available (no public log)",
                         "system_size": paper["system_size"], "unit": "nodes", "schedule": "",
                         "jobs_analysed": None, "max_running_ours": None, "p99_running_ours": None,
                         "max_running_paper": paper["max_running"], "paper_period": paper["period"]})
    table = pd.DataFrame(rows)
    fig, ax = new_figure()
    x = np.arange(len(table))
    ours = pd.to_numeric(table["max_running_ours"], errors="coerce").to_numpy(dtype=float)
    paper = pd.to_numeric(table["max_running_paper"], errors="coerce").to_numpy(dtype=float)
    ax.bar(x - 0.2, ours, width=0.4, label="ours")
    ax.bar(x + 0.2, paper, width=0.4, label="paper (Table 2)")
    for xi, v in zip(x - 0.2, ours):
        if np.isfinite(v):
            ax.text(xi, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
    for xi, v in zip(x + 0.2, paper):
        ax.text(xi, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, [f"{w}\n({n:,})" for w, n in zip(table["workload"], table["system_size"])])
    ax.set_ylabel("maximum number of running jobs (jobs)")
    ax.set_xlabel("workload (system size)")
    ax.set_title("Table 2: maximum running jobs")
    ax.legend()
    save_figure(fig, png, table)
    write_text(Path(png).with_suffix(".md"), markdown_table(
        table, "SEM Table 2: maximum number of running jobs",
        "Paper: Table 2 of sem-encoding.txt. Ours: the traces in ../shared/traces (Theta: 2022 log, "
        "the paper used 2018-2019). Sizes in the trace's unit (cores for DataStar and Atlas, as in "
        "the paper; nodes for Theta)."))
    return table


# --------------------------------------------------------------------------- Table 3
def table3_node_hour_loss(analyses: list[dict], png: str | Path, ks=(30, 40, 50)) -> pd.DataFrame:
    """Node-hour loss (%) of the K-largest-job encoding, ours beside the paper's."""
    rows = []
    for item in analyses:
        s, kl = item["summary"], item["k_largest"].set_index("k")
        for k in ks:
            paper = PAPER_LOSS_PCT.get(s["name"], {}).get(k)
            rows.append({"workload": label_of(s), "trace": s["name"], "k": k,
                         "loss_pct_ours": float(kl.loc[k, "node_hour_loss_pct"]) if k in kl.index else None,
                         "loss_pct_paper": paper})
    table = pd.DataFrame(rows)
    fig, ax = new_figure()
    workloads = list(dict.fromkeys(table["workload"]))
    width = 0.8 / (2 * len(ks))
    for j, k in enumerate(ks):
        sub = table[table["k"] == k].set_index("workload").loc[workloads]
        x = np.arange(len(workloads)) + (2 * j - len(ks)) * width + width / 2
        ours = sub["loss_pct_ours"].astype(float).to_numpy()
        ax.bar(x, ours, width, color=f"C{j}", label=f"K={k} ours")
        ax.bar(x + width, pd.to_numeric(sub["loss_pct_paper"], errors="coerce"), width, color=f"C{j}",
               alpha=0.45, hatch="//", label=f"K={k} paper")
        for xi, v in zip(x, ours):
            if v == 0:  # invisible bar: say it is an exact zero (K >= max running jobs)
                ax.text(xi, 0, "0", ha="center", va="bottom", fontsize=7)
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_xticks(np.arange(len(workloads)), workloads)
    ax.set_ylabel("node-hour loss (% of all node-hours)")
    ax.set_xlabel("workload")
    ax.set_title("Table 3: node-hour loss, K-largest-job encoding")
    fig.legend(fontsize=7, ncols=len(ks), loc="outside lower center")
    save_figure(fig, png, table)
    wide = table.pivot_table(index="workload", columns="k", values=["loss_pct_ours", "loss_pct_paper"],
                             aggfunc="first", dropna=False)
    wide.columns = [f"{'ours' if c == 'loss_pct_ours' else 'paper'} K={k} (%)" for c, k in wide.columns]
    wide = wide[sorted(wide.columns, key=lambda c: (int(c.split("K=")[1].split(" ")[0]), c))].reset_index()
    write_text(Path(png).with_suffix(".md"), markdown_table(
        wide, "SEM Table 3: node-hour loss of the K-largest-job encoding (%)",
        "Loss = node-hours of running jobs outside the K largest / all node-hours. Paper's Atlas "
        "K=50 value is printed '9e-05' without a unit; shown as 0.009%."))
    return table


# --------------------------------------------------------------------------- Fig. 7
def fig7_k_largest_coverage(analyses: list[dict], png: str | Path, thresholds=(0.90, 0.95)) -> pd.DataFrame:
    """Share of the trace period in which the K largest jobs cover 90% / 95% of allocated nodes."""
    fig, axes = new_figure(1, len(thresholds), sharey=True)
    axes = np.atleast_1d(axes)
    rows = []
    for ax, thr in zip(axes, thresholds):
        col = share_column(thr)
        for i, item in enumerate(analyses):
            s, kl = item["summary"], item["k_largest"]
            kl = kl[kl["k"] >= 1]
            ax.plot(kl["k"], 100 * kl[col], color=f"C{i}", label=f"{label_of(s)} ours")
            pts = [(k, v) for (name, k, t), (_, v) in PAPER_COVERAGE.items() if name == s["name"] and t == thr]
            if pts:
                ax.plot(*zip(*pts), ls="none", marker="o", mfc="none", color=f"C{i}",
                        label=f"{s['label']} paper (text)")
            rows.append(pd.DataFrame({"trace": s["name"], "label": label_of(s), "threshold": thr,
                                      "k": kl["k"], "share_pct": 100 * kl[col]}))
        ax.set_xlabel("K (largest running jobs encoded)")
        ax.set_title(f"covering {thr:.0%} of allocated nodes")
        ax.set_ylim(None, 100.5)
    axes[0].set_ylabel("share of trace period covered (%)")
    axes[-1].legend(fontsize=7, loc="lower right")
    fig.suptitle("Fig. 7: trace coverage of the K-largest-job encoding")
    data = pd.concat(rows, ignore_index=True)
    paper = pd.DataFrame([{"trace": n, "k": k, "threshold": t, "relation": r, "paper_pct": v}
                          for (n, k, t), (r, v) in PAPER_COVERAGE.items()])
    data = data.merge(paper, on=["trace", "k", "threshold"], how="left")
    save_figure(fig, png, data)
    return data


# --------------------------------------------------------------------------- markdown + claims
def markdown_table(frame: pd.DataFrame, title: str, note: str = "") -> str:
    """A GitHub markdown table (no extra dependency), blanks for missing values."""
    cols = list(frame.columns)
    lines = [f"### {title}", ""]
    if note:
        lines += [note, ""]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("| " + " | ".join("---" for _ in cols) + " |")
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            if v is None or (isinstance(v, float) and not np.isfinite(v)):
                cells.append("")
            elif isinstance(v, float) and v.is_integer() and abs(v) >= 1:
                cells.append(f"{int(v):,}")
            elif isinstance(v, float):
                cells.append(f"{v:.4g}")
            elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                cells.append(f"{int(v):,}" if abs(v) >= 10000 else str(v))
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _data_note(s: dict) -> str:
    note = s["source"] if s["source_kind"] == "trace" else f"stand-in: Lublin {s['source']} (trace not found)"
    if s.get("max_jobs"):
        note += f", first {s['max_jobs']:,} jobs"
    return note


def trace_analysis(folders: list[str | Path], figures_dir: str | Path, claims_path: str | Path) -> None:
    """Every SEM analysis output: Fig. 5, Table 2 (+ .md), Table 3 (+ .md), Fig. 7, claims."""
    from schedrl.report.claims import write_claims

    analyses = load_analyses(folders)
    figures_dir = Path(figures_dir)
    fig5_running_jobs_cdf(analyses, figures_dir / "fig5_running_jobs_cdf.png")
    table2_max_running(analyses, figures_dir / "table2_max_running.png")
    table3_node_hour_loss(analyses, figures_dir / "table3_node_hour_loss.png")
    common = set.intersection(*(set(a["summary"]["thresholds"]) for a in analyses))
    fig7_k_largest_coverage(analyses, figures_dir / "fig7_k_largest_coverage.png", sorted(common))
    write_claims(claims_path, claims.claims_rows(analyses))


# =========================================================================== sections 4-5: agents
# Inputs: the folders written by 'schedrl sem train' (results/sem/agents/<trace>/<encoder>/:
# validation.csv, test.json, timing.json), 'schedrl sem heuristics' (heuristics.csv) and
# 'schedrl sem scaling' (results/sem/scaling/<encoder>_x<f>/scaling.json).
ENC_LABEL = {"sem": "SEM", "dras": "DRAS"}
ENC_COLOR = {"sem": "C0", "dras": "C1"}


def load_agents(agents_dir: str | Path, traces: list[str]) -> dict:
    """{trace: {"runs": {encoder: {"validation", "test", "timing"}}, "heuristics": frame}}."""
    out = {}
    for trace in traces:
        base = Path(agents_dir) / trace
        runs = {}
        for enc in ENC_LABEL:
            folder = base / enc
            if (folder / "test.json").exists():
                runs[enc] = _load_run(folder)
                seeds = sorted((d for d in (folder / "seeds").glob("*") if (d / "test.json").exists()),
                               key=lambda d: int(d.name) if d.name.isdigit() else -1)
                runs[enc]["seeds"] = [_load_run(d) for d in seeds]
        heur = pd.read_csv(base / "heuristics.csv") if (base / "heuristics.csv").exists() else pd.DataFrame()
        variants = {}
        for enc in ENC_LABEL:
            for folder in sorted((base / enc).glob("*_*")):
                if folder.name.startswith(VARIANT_PREFIXES) and (folder / "test.json").exists():
                    variants.setdefault(folder.name, {})[enc] = _load_run(folder)
        out[trace] = {"runs": runs, "heuristics": heur, "variants": variants}
    return out


#: agents beside the faithful ones (issue 37 items 2 and 5), one seed each, in
#: results/sem/agents/<trace>/<encoder>/<variant>/: process_<p> (the env's decision process p),
#: reward_<r> (reward r: beyond the paper)
VARIANT_PREFIXES = ("process_", "reward_")


def variant_label(name: str) -> str:
    """How a variant's Fig. 9 rows are labelled, e.g. "(DRAS's process)"."""
    kind, _, value = name.partition("_")
    if kind == "process":
        return "(DRAS's process)" if value == "dras" else f"({value} process)"
    return f"({value} reward, beyond the paper)"


def _load_run(folder: Path) -> dict:
    """One trained agent's outputs, its fingerprint and its no-learning references
    (``ref_<kind>/``: the same files, played on the same test jobs) where they exist."""
    run = {"validation": pd.read_csv(folder / "validation.csv"), "test": read_json(folder / "test.json"),
           "timing": read_json(folder / "timing.json"), "budgets": _csv_or_none(folder / "budgets.csv"),
           "test_jobs": _csv_or_none(folder / "test_jobs.csv"), "fingerprint": _json_or_none(folder / "fingerprint.json"),
           "sampled": _csv_or_none(folder / "test_sampled.csv"),
           "sampled_jobs": _csv_or_none(folder / "test_jobs_sampled.csv"), "references": {}}
    for kind in REFERENCES:
        ref = folder / f"ref_{kind}"
        if (ref / "test.json").exists():
            run["references"][kind] = {"test": read_json(ref / "test.json"), "test_jobs": _csv_or_none(ref / "test_jobs.csv"),
                                       "fingerprint": _json_or_none(ref / "fingerprint.json")}
    return run


def _json_or_none(path: Path):
    return read_json(path) if path.exists() else None


def fingerprint_paths(agents_dir: str | Path, traces: list[str]) -> list[Path]:
    """Every agent's ``fingerprint.json`` under the agents folder: trained (first seed, extra
    seeds) and their references, in a stable order."""
    out = []
    for trace in traces:
        for enc in ENC_LABEL:
            folder = Path(agents_dir) / trace / enc
            seeds = sorted((d for d in (folder / "seeds").glob("*") if d.name.isdigit()), key=lambda d: int(d.name))
            variants = sorted(d for d in folder.glob("*_*") if d.name.startswith(VARIANT_PREFIXES))
            for run in [folder] + seeds + variants:
                out += [p for p in [run / "fingerprint.json"] + [run / f"ref_{k}" / "fingerprint.json" for k in REFERENCES]
                        if p.exists()]
    return out


def write_fingerprints(agents_dir: str | Path, traces: list[str], path: str | Path) -> pd.DataFrame:
    """``results/sem/fingerprints.csv``: one row per evaluated agent (trained and references)."""
    from schedrl.experiments.fingerprint import fingerprint_table
    from schedrl.io import write_csv

    frame = fingerprint_table(fingerprint_paths(agents_dir, traces))
    if len(frame):  # a variant's agent is named as its Fig. 9 row: "SEM theta seed 0 (DRAS's process)"
        variant = [next((x for x in Path(p).parts if x.startswith(VARIANT_PREFIXES)), "") for p in frame["path"]]
        frame["agent"] = [f"{a} {variant_label(v)}" if v else a for a, v in zip(frame["agent"], variant)]
    lead = [c for c in ("agent", "kind", "trace", "encoder", "seed", "plays_as", "contested") if c in frame.columns]
    frame = frame[lead + [c for c in frame.columns if c not in lead]]
    write_csv(path, frame)
    return frame


def _csv_or_none(path: Path):
    return pd.read_csv(path) if path.exists() else None


def _trace_label(trace: str, agents: dict | None = None) -> str:
    label = PAPER_TRACES.get(trace, {}).get("label", trace)
    runs = (agents or {}).get(trace, {}).get("runs", {})
    if any(r["test"].get("stand_in") for r in runs.values()):
        label += " (stand-in)"
    return label


# --------------------------------------------------------------------------- Table 4
def table4_networks(networks: dict, png: str | Path, window: int = 50) -> pd.DataFrame:
    """Table 4: layer widths of the SEM and DRAS networks per trace (built, then read off the
    network) beside the paper's, with our parameter counts."""
    from schedrl.agents.networks import build, layer_widths, parameter_count
    from schedrl.encoders.hpc import HPCEncoderParams, dras_size, sem_size

    paper = claims.VALUES["table4"]
    names = ["state vector", "convolutional layer", "fully connected 1", "fully connected 2", "output"]
    rows = []
    for trace, spec in networks.items():
        p = HPCEncoderParams(nodes=int(spec["nodes"]), window=window, k=int(spec["k"]))
        for enc in ENC_LABEL:
            n_in = (sem_size if enc == "sem" else dras_size)(p)
            net = build("pair_conv", n_in, window, list(spec["hidden"][enc]), "relu")
            widths = layer_widths(net)
            theirs = paper.get(trace, {}).get(enc, [None] * len(widths))
            row = {"trace": _trace_label(trace), "encoding": ENC_LABEL[enc]}
            for name, ours, pv in zip(names, widths, theirs):
                row[f"{name} (ours)"] = ours
                row[f"{name} (paper)"] = pv
            row["parameters (ours)"] = parameter_count(net)
            row["matches Table 4"] = "yes" if list(widths) == list(theirs) else "no"
            rows.append(row)
            del net
    table = pd.DataFrame(rows)
    fig, ax = new_figure(figsize=(7.5, 3.6))
    x = np.arange(len(table))
    ax.bar(x, table["parameters (ours)"], color=[ENC_COLOR["sem" if e == "SEM" else "dras"] for e in table["encoding"]])
    for xi, (v, widths) in enumerate(zip(table["parameters (ours)"], table[[f"{n} (ours)" for n in names]].to_numpy())):
        ax.text(xi, v, f"{v:,}\n{'-'.join(str(w) for w in widths)}", ha="center", va="bottom", fontsize=7)
    ax.set_yscale("log")
    ax.set_xticks(x, [f"{t}\n{e}" for t, e in zip(table["trace"], table["encoding"])])
    ax.set_ylabel("trainable parameters (log scale)")
    ax.set_title("Table 4: agent networks (layer widths as the paper's; counts ours)")
    save_figure(fig, png, table)
    short = table[["trace", "encoding"]].copy()
    short["layers (ours)"] = ["-".join(f"{int(w):,}" for w in r) for r in table[[f"{n} (ours)" for n in names]].to_numpy()]
    short["layers (paper)"] = ["-".join(f"{int(w):,}" for w in r) if all(w is not None and w == w for w in r) else ""
                               for r in table[[f"{n} (paper)" for n in names]].to_numpy()]
    short["parameters (ours)"] = table["parameters (ours)"]
    short["matches Table 4"] = table["matches Table 4"]
    write_text(Path(png).with_suffix(".md"), markdown_table(
        short, "SEM Table 4: RL agent networks",
        "Layers: state vector - convolution (one filter, kernel 2, stride 2) - fully connected 1 - fully "
        "connected 2 - output (softmax over the 50 window jobs). Widths read off the built networks; "
        "parameter counts are ours (the paper gives none)."))
    return table


# --------------------------------------------------------------------------- Fig. 8
def fig8_convergence(agents: dict, png: str | Path, tolerance: float = 0.05, window: int = 10,
                     saturation: float = 0.99) -> pd.DataFrame:
    """Validation return after each training episode, SEM vs DRAS per trace, the convergence
    episode of each curve marked (rule: ``agents.convergence_episode``), the paper's beside."""
    traces = list(agents)
    fig, axes = new_figure(1, max(len(traces), 1), squeeze=False)
    paper = claims.VALUES["convergence_episode"]
    rows = []
    for ax, trace in zip(axes[0], traces):
        for enc, run in agents[trace]["runs"].items():
            v = run["validation"].sort_values("episode")
            st = claims.convergence_status(v, tolerance, window, saturation)
            conv = st["episode"]
            ours_label = f"{ENC_LABEL[enc]} ours ({st['state']} at {conv})"
            ax.plot(v["episode"], v["return"], color=ENC_COLOR[enc], marker=".", ms=3, label=ours_label)
            if conv is not None:
                y = float(v.loc[v["episode"] == conv, "return"].iloc[0])
                ax.plot([conv], [y], marker="*", ms=12, color=ENC_COLOR[enc], ls="none")
            pv = paper.get(trace, {}).get(enc)
            if pv is not None:
                ax.axvline(pv, color=ENC_COLOR[enc], ls=":", lw=1.2, label=f"{ENC_LABEL[enc]} paper ({pv} of 100)")
            rows.append(v.assign(trace=trace, encoder=enc, convergence_episode=conv, convergence_state=st["state"],
                                 top_prob_at_convergence=st["top_prob_at"], paper_convergence_episode=pv,
                                 episodes=len(v)))
        ax.set_xlabel("training episode")
        ax.set_ylabel("validation return (sum of rewards)")
        ax.set_title(f"{_trace_label(trace, agents)}")
        ax.legend(fontsize=7)
    fig.suptitle(f"Fig. 8: convergence (star: first episode after which the validation return stays within "
                 f"{tolerance:.0%} of the curve's range of the mean of the last {window}; saturated: median top "
                 f"probability >= {saturation:g} at the end)", fontsize=8)
    data = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    save_figure(fig, png, data)
    return data


# --------------------------------------------------------------------------- Fig. 9
def _sampled_row(label: str, run: dict, seeds: int) -> dict | None:
    """A Fig. 9 row of sampled play: each metric's mean over the agent seeds' play seeds and its
    95% interval (``claims.sampled_mean_ci``); None without sampled play."""
    from schedrl.papers.sem.agents import KIVIAT

    row = {"method": f"{label}, sampled", "play": "sampled", "passes": claims.play_count(run, seeds)}
    for col, _, _ in KIVIAT:
        ci = claims.sampled_mean_ci(run, col, seeds)
        if ci is None:
            return None
        row[col], row[f"{col}_ci95"] = ci[0], "{} [{}, {}]".format(*map(claims.number, ci))
    return row


def kiviat_table(agents: dict) -> pd.DataFrame:
    """Per trace and method: the four Kiviat metrics, raw and normalised to the best method (1).
    Agents play greedily (the first seed's test, as before) and, where they were tested so, sampled
    (means over agent and play seeds with 95% intervals); variants (DRAS's process, an aligned
    reward) are labelled; FCFS+EASY and SJF+EASY ran on the same test jobs."""
    from schedrl.papers.sem.agents import KIVIAT

    rows = []
    for trace, item in agents.items():
        runs = item["runs"]
        seeds = claims.n_seeds(runs) if {"sem", "dras"} <= set(runs) else None
        agent_runs = [(ENC_LABEL[enc], run, seeds) for enc, run in runs.items()]
        for name, vruns in (item.get("variants") or {}).items():
            agent_runs += [(f"{ENC_LABEL[enc]} {variant_label(name)}", run, 1) for enc, run in vruns.items()]
        methods = []
        for label, run, n in agent_runs:
            methods.append({"method": label, "play": "greedy", "passes": "1 (first seed)", **run["test"]})
            sampled = _sampled_row(label, run, n)
            if sampled is not None:
                methods.append(sampled)
        methods += [{**m, "play": "", "passes": "1"} for m in item["heuristics"].to_dict("records")]
        for m in methods:
            rows.append({"trace": trace, "method": m["method"], "play": m.get("play", ""), "passes": m.get("passes", ""),
                         **{col: m.get(col) for col, _, _ in KIVIAT},
                         **{f"{col}_ci95": m.get(f"{col}_ci95", "") for col, _, _ in KIVIAT}})
    table = pd.DataFrame(rows)
    for col, _, invert in KIVIAT:
        if table.empty:
            break
        score = pd.to_numeric(table[col], errors="coerce").astype(float)
        score = 1.0 / score.where(score > 0) if invert else score
        best = score.groupby(table["trace"]).transform("max")
        table[f"{col}_norm"] = score / best
    return table


def fig9_kiviat(agents: dict, png: str | Path) -> pd.DataFrame:
    """Kiviat graphs on the test jobs: utilisation, 1/mean wait, 1/max wait, 1/mean slowdown,
    each normalised to the best method, for SEM, DRAS, FCFS+EASY and SJF+EASY."""
    import matplotlib.pyplot as plt

    from schedrl.papers.sem.agents import KIVIAT

    table = kiviat_table(agents)
    traces = list(agents)
    most = int(table.groupby("trace").size().max()) if len(table) else 4
    fig = plt.figure(figsize=(max(5.0 * len(traces), 7.0), 4.6 + 0.16 * max(most - 6, 0)), layout="constrained")
    labels = [label for _, label, _ in KIVIAT]
    angles = np.linspace(0, 2 * np.pi, len(labels), endpoint=False)
    colors = {"SEM": ENC_COLOR["sem"], "DRAS": ENC_COLOR["dras"], "FCFS+EASY": "C2", "SJF+EASY": "C3"}
    for i, trace in enumerate(traces):
        ax = fig.add_subplot(1, len(traces), i + 1, projection="polar")
        sub = table[table["trace"] == trace]
        for _, row in sub.iterrows():
            vals = np.nan_to_num([row[f"{c}_norm"] for c, _, _ in KIVIAT])
            base = str(row["method"]).split(",")[0].split(" (")[0]
            agent = str(row["method"]).split(",")[0]  # a variant gets its own colour
            if agent not in colors:
                colors[agent] = f"C{4 + (len(colors) - 4) % 6}"
            # greedy agents solid, sampled dotted, variants dash-dotted, heuristics dashed
            ls = ("-." if "(" in str(row["method"]) else ":" if row.get("play") == "sampled" else "-") \
                if base in ("SEM", "DRAS") else "--"
            lw = 3.0 if row["method"] == "SEM" else 1.4  # SEM drawn wider: it may lie right under DRAS
            ax.plot(np.append(angles, angles[0]), np.append(vals, vals[0]), ls=ls, lw=lw,
                    color=colors.get(agent, colors.get(base)), label=row["method"])
            if row["method"] in ("SEM", "DRAS"):
                ax.fill(angles, vals, alpha=0.08, color=colors.get(row["method"]))
        ax.set_xticks(angles, labels, fontsize=7)
        ax.set_ylim(0, 1.05)
        gap = claims.VALUES["metric_gap_pct"].get(trace)
        ax.set_title(f"{_trace_label(trace, agents)} (paper: SEM within {gap}% of DRAS)" if gap is not None
                     else _trace_label(trace, agents), fontsize=9)
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2 if len(sub) > 6 else 1)
    fig.suptitle("Fig. 9: scheduling performance on the test jobs (1 = best method; larger is better)", fontsize=9)
    save_figure(fig, png, table)
    md = Path(png).with_suffix(".md")
    cols = ["trace", "method", "play", "passes"] + [c for col, _, _ in KIVIAT for c in (col, f"{col}_ci95")]
    shown = table[[c for c in cols if c in table.columns]].copy()
    for col, _, _ in KIVIAT:  # 32,880 rather than 3.288e+04
        if col in shown:
            shown[col] = [claims.number(float(v)) if pd.notna(v) else "" for v in shown[col]]
    md.write_text(markdown_table(shown, "Fig. 9: the test jobs",
                                 "Greedy: the highest-probability valid slot (the first seed's test). Sampled: actions "
                                 "drawn from the policy's softmax as DRAS's code tests, mean over agent seeds and play "
                                 "seeds with a 95% bootstrap interval (agent seeds, then play seeds). FCFS+EASY and "
                                 "SJF+EASY on the same test jobs. \"(DRAS's process)\": the same agents trained and tested "
                                 "under DRAS's code's decision process (one seed); \"beyond the paper\": the same agents "
                                 "with a reward aligned with the metric (one seed), not the paper's."))
    return table


# --------------------------------------------------------------------------- Fig. 10
def time_table(agents: dict) -> pd.DataFrame:
    """Training and inference time per trace and encoder, by part, with DRAS/SEM speedups.
    Training time is the trainer's clock (env, encoder, agent); the snapshot I/O of our
    validate-after-every-episode loop (``io_s``) is listed apart and not in the speedup."""
    rows = []
    for trace, item in agents.items():
        for enc, run in item["runs"].items():
            t, test = run["timing"], run["test"]
            rows.append({"trace": trace, "encoder": enc, "phase": "training", "jobs": t["train_jobs"],
                         "decisions": t["steps"], "total_s": t["trainer_s"], "encoder_s": t["encoder_s"],
                         "env_s": t["env_s"], "agent_s": t["agent_s"], "io_s": t["io_s"],
                         "threads": t["threads"], "machine": t["machine"]})
            rows.append({"trace": trace, "encoder": enc, "phase": "inference", "jobs": test["jobs"],
                         "decisions": test["decisions"], "total_s": test["wall_s"], "encoder_s": test["encoder_s"],
                         "env_s": test["env_s"], "agent_s": test["agent_s"], "io_s": 0.0,
                         "threads": t["threads"], "machine": t["machine"]})
    table = pd.DataFrame(rows)
    if not table.empty:
        sem = table[table["encoder"] == "sem"].set_index(["trace", "phase"])["total_s"]
        table["speedup_dras_over_sem"] = [
            (row.total_s / sem.get((row.trace, row.phase), np.nan)) if row.encoder == "dras" else np.nan
            for row in table.itertuples()]
    return table


def fig10_times(agents: dict, png: str | Path) -> pd.DataFrame:
    """Training time (the training part) and inference time (the test part), SEM vs DRAS, split
    into encoder, rest of the env, agent and checkpoint I/O; speedups DRAS/SEM written above."""
    table = time_table(agents)
    fig, axes = new_figure(1, 2, squeeze=False)
    parts = [("encoder_s", "encoder", "C4"), ("env_s", "simulator + reward", "C7"), ("agent_s", "agent (network)", "C0")]
    paper = claims.VALUES["speedup_max"]
    for ax, phase in zip(axes[0], ("training", "inference")):
        sub = table[table["phase"] == phase].reset_index(drop=True) if not table.empty else table
        x = np.arange(len(sub))
        bottom = np.zeros(len(sub))
        for col, label, color in parts:
            vals = sub[col].to_numpy(dtype=float) if len(sub) else np.zeros(0)
            ax.bar(x, vals, bottom=bottom, color=color, label=label)
            bottom += vals
        for xi, row in zip(x, sub.itertuples()):
            text = f"{row.total_s:.3g} s"
            if row.encoder == "dras" and np.isfinite(row.speedup_dras_over_sem):
                text += f"\n{row.speedup_dras_over_sem:.1f}x SEM"
            ax.text(xi, bottom[xi], text, ha="center", va="bottom", fontsize=7)
        jobs = ", ".join(f"{_trace_label(r.trace, agents)} {int(r.jobs):,}" for r in sub.drop_duplicates("trace").itertuples())
        key = "train" if phase == "training" else "inference"
        ax.set_title(f"{phase} ({jobs} jobs); paper: up to {paper[key]}x", fontsize=8)
        ax.set_xticks(x, [f"{_trace_label(r.trace, agents)}\n{ENC_LABEL[r.encoder]}" for r in sub.itertuples()], fontsize=7)
        ax.set_ylabel(f"{phase} time (s)")
        if len(sub):
            ax.set_ylim(0, bottom.max() * 1.3 if bottom.max() > 0 else 1)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Fig. 10: training and inference time (one run, one machine, one thread; speedup = DRAS / SEM; "
                 "snapshot I/O not counted)", fontsize=8)
    save_figure(fig, png, table)
    return table


# --------------------------------------------------------------------------- Fig. 11
def load_scaling(folders: list[str | Path]) -> pd.DataFrame:
    rows = [read_json(Path(f) / "scaling.json") for f in folders if (Path(f) / "scaling.json").exists()]
    return pd.DataFrame(rows).sort_values(["encoder", "nodes"]).reset_index(drop=True) if rows else pd.DataFrame()


def fig11_scaling(scaling: pd.DataFrame, png: str | Path) -> pd.DataFrame:
    """Training and inference time for the same jobs as the machine grows (job sizes and inputs
    grow with it), SEM vs DRAS; the paper's 34,880-node training times beside ours."""
    fig, axes = new_figure(1, 2, squeeze=False)
    paper = claims.VALUES["scaling_largest"]
    for ax, (col, phase) in zip(axes[0], (("train_s", "training"), ("inference_s", "inference"))):
        for enc in ENC_LABEL:
            sub = scaling[scaling["encoder"] == enc] if not scaling.empty else scaling
            if len(sub):
                ax.plot(sub["nodes"], sub[col], marker="o", color=ENC_COLOR[enc], label=f"{ENC_LABEL[enc]} ours")
        if phase == "training":
            ax.plot([paper["nodes"]], [paper["dras_train_s"]], marker="x", ms=9, color=ENC_COLOR["dras"], ls="none",
                    label=f"DRAS paper (> {paper['dras_train_s']:,} s, 1,000 jobs)")
            ax.plot([paper["nodes"]], [paper["sem_train_s"]], marker="x", ms=9, color=ENC_COLOR["sem"], ls="none",
                    label=f"SEM paper ({paper['sem_train_s']} s, 1,000 jobs)")
        jobs = int(scaling["jobs"].iloc[0]) if not scaling.empty else 0
        ax.set_xlabel("system size (nodes)")
        ax.set_ylabel(f"{phase} time for {jobs:,} jobs (s, log scale)")
        ax.set_yscale("log")
        ax.set_title(f"{phase}", fontsize=9)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle("Fig. 11: time as the system grows (Theta jobs, sizes scaled with the machine)", fontsize=9)
    save_figure(fig, png, scaling)
    return scaling


# --------------------------------------------------------------------------- Fig. 3
def fig3_dras_cost_vs_size(scaling: pd.DataFrame, png: str | Path) -> pd.DataFrame:
    """DRAS's training time against system size (Fig. 3: the cost of the per-node encoding), from
    Fig. 11's DRAS runs, with a linear-growth reference through the smallest size."""
    fig, ax = new_figure()
    d = scaling[scaling["encoder"] == "dras"].sort_values("nodes") if not scaling.empty else scaling
    if len(d):
        ax.plot(d["nodes"], d["train_s"], marker="o", color=ENC_COLOR["dras"], label="DRAS ours (training time)")
        ref = d["train_s"].iloc[0] * d["nodes"] / d["nodes"].iloc[0]
        ax.plot(d["nodes"], ref, ls=":", color="0.5", label="linear growth from the smallest size")
        ax.legend(fontsize=7)
    jobs = int(d["jobs"].iloc[0]) if len(d) else 0
    ax.set_xlabel("system size (nodes)")
    ax.set_ylabel(f"DRAS training time for {jobs:,} jobs (s)")
    ax.set_title("Fig. 3: DRAS training cost vs system size (paper: grows exponentially)", fontsize=9)
    data = d[["nodes", "inputs", "parameters", "jobs", "train_s"]] if len(d) else pd.DataFrame(
        columns=["nodes", "inputs", "parameters", "jobs", "train_s"])
    save_figure(fig, png, data)
    return data


# --------------------------------------------------------------------------- Fig. 6
def load_windows(folders: list[str | Path]) -> pd.DataFrame:
    rows = [read_json(Path(f) / "window.json") for f in folders if (Path(f) / "window.json").exists()]
    return pd.DataFrame(rows).sort_values("window").reset_index(drop=True) if rows else pd.DataFrame()


def fig6_dras_cost_vs_window(windows: pd.DataFrame, png: str | Path) -> pd.DataFrame:
    """DRAS's training time for the same (denser) jobs against the window W (Fig. 6)."""
    fig, ax = new_figure()
    if len(windows):
        ax.plot(windows["window"], windows["train_s"], marker="o", color=ENC_COLOR["dras"], label="DRAS ours")
        base = float(windows["train_s"].iloc[0])
        ax.axhspan(base - 1, base + 1, color="0.85", label="+-1 s of the smallest W (paper: within 1 s)")
        ax.legend(fontsize=7)
        ax.set_ylim(0, None)
    jobs = int(windows["jobs"].iloc[0]) if len(windows) else 0
    density = float(windows["density"].iloc[0]) if len(windows) else 1.0
    ax.set_xlabel("window W (waiting jobs encoded)")
    ax.set_ylabel(f"DRAS training time for {jobs:,} jobs (s)")
    ax.set_title(f"Fig. 6: DRAS training cost vs W (Theta jobs, arrivals {density:g}x denser)", fontsize=9)
    cols = ["window", "inputs", "parameters", "jobs", "density", "train_steps", "train_s"]
    data = windows[cols] if len(windows) else pd.DataFrame(columns=cols)
    save_figure(fig, png, data)
    return data


def budget_plot(frame: pd.DataFrame, png: str | Path) -> dict:
    """Each RL claim's value at 1/8, 1/4, 1/2 and all of training (``plots.budget``)."""
    from schedrl.plots.budget import budget_figure

    return budget_figure(frame, png, title="SEM: RL claims against training (checkpoints on the test jobs)")


def agent_figures(agents_dir, traces: list[str], networks: dict, scaling_folders: list, figures_dir,
                  claims_path, trace_claims=None, convergence: dict | None = None, windows=(),
                  fingerprints=None) -> None:
    """Table 4 (+ .md), Figs. 8-11 and the claims table (the trace analysis's claims first), the
    RL claims with their no-learning references; ``fingerprints``: the agents' table (CSV)."""
    from schedrl.report.claims import write_claims

    conv = {"tolerance": 0.05, "window": 10, "saturation": 0.99, **(convergence or {})}
    agents = load_agents(agents_dir, traces)
    for trace, item in agents.items():  # the configured reward (runs from before 2026-11-25 do not record it)
        item["reward"] = networks.get(trace, {}).get("reward")
        item["reward_kwargs"] = dict(networks.get(trace, {}).get("reward_kwargs") or {})
    scaling = load_scaling(scaling_folders)
    figures_dir = Path(figures_dir)
    table4_networks(networks, figures_dir / "table4_networks.png")
    fig8_convergence(agents, figures_dir / "fig8_convergence.png", conv["tolerance"], conv["window"],
                     conv["saturation"])
    fig9_kiviat(agents, figures_dir / "fig9_kiviat.png")
    fig10_times(agents, figures_dir / "fig10_train_inference_time.png")
    fig11_scaling(scaling, figures_dir / "fig11_scaling.png")
    fig3_dras_cost_vs_size(scaling, figures_dir / "fig3_dras_cost_vs_size.png")
    window_frame = load_windows(list(windows))
    fig6_dras_cost_vs_window(window_frame, figures_dir / "fig6_dras_cost_vs_window.png")
    from schedrl.report.convergence import write_budget_table

    rows = pd.read_csv(trace_claims).to_dict("records") if trace_claims else []
    agent_rows = claims.agent_claims_rows(agents, scaling, conv["tolerance"], conv["window"], conv["saturation"])
    long_rows: list[dict] = []
    winners, extra = claims.comparison_rows(agents, long_rows)
    for row in agent_rows:
        more = dict(extra.get(row["claim_id"], {}))
        note = more.pop("note_extra", "")
        row.update(more)
        if note:
            row["note"] = "; ".join(x for x in (row.get("note", ""), note) if x)
    agent_rows += winners + claims.speedup_order_rows(agents) + claims.dras_growth_row(scaling) + claims.window_cost_row(window_frame)
    claims.add_references(agent_rows, agents, conv["tolerance"], conv["window"], conv["saturation"])
    if fingerprints:
        write_fingerprints(agents_dir, traces, fingerprints)
    budget = write_budget_table(Path(claims_path).with_name("claims_budget.csv"), long_rows)
    budget_plot(budget, figures_dir / "budget.png")
    write_claims(claims_path, rows + agent_rows)


_RULE = "sem_trace_figures"  # one rule draws the trace analysis: the four share their inputs
_AGENTS = "sem_agent_figures"  # one rule draws the agents' table and figures and the claims table
TARGETS: list[Target] = [
    Target("sem", "fig5_running_jobs_cdf", fig5_running_jobs_cdf, _RULE, "CDF of the number of running jobs",
           claims=("table2_max_running",)),
    Target("sem", "table2_max_running", table2_max_running, _RULE, "Maximum number of running jobs", kind="table",
           claims=("table2_", "zero_padding")),
    Target("sem", "table3_node_hour_loss", table3_node_hour_loss, _RULE,
           "Node-hour loss of the K-largest-job encoding", kind="table", claims=("table3_",)),
    Target("sem", "fig7_k_largest_coverage", fig7_k_largest_coverage, _RULE,
           "Trace coverage of the K-largest-job encoding", claims=("fig7_",)),
    Target("sem", "table4_networks", table4_networks, _AGENTS, "Agent networks of SEM and DRAS (widths, parameters)",
           kind="table", claims=("table4_",)),
    Target("sem", "fig8_convergence", fig8_convergence, _AGENTS, "Convergence: validation return per episode",
           claims=("fig8_",)),
    Target("sem", "fig9_kiviat", fig9_kiviat, _AGENTS, "Scheduling performance on the test jobs (Kiviat)",
           claims=("fig9_",)),
    Target("sem", "fig10_train_inference_time", fig10_times, _AGENTS, "Training and inference time, SEM vs DRAS",
           claims=("fig10_",)),
    Target("sem", "fig11_scaling", fig11_scaling, _AGENTS, "Training and inference time as the system grows",
           claims=("fig11_",)),
    Target("sem", "fig3_dras_cost_vs_size", fig3_dras_cost_vs_size, _AGENTS,
           "DRAS training cost vs system size (from Fig. 11's DRAS runs)", claims=("fig3_",)),
    Target("sem", "fig6_dras_cost_vs_window", fig6_dras_cost_vs_window, _AGENTS,
           "DRAS training cost vs window size W", claims=("fig6_",)),
    Target("sem", "budget", budget_plot, _AGENTS,
           "RL claims at 1/8, 1/4, 1/2 and all of training (checkpoints played on the test jobs)",
           claims=("fig9_",)),
    Target("sem", "claims", claims.claims_rows, _AGENTS, "Claims: ours vs the paper's", kind="claims",
           claims=("",)),
]
