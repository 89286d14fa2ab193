"""SEM trace-analysis figures and tables (sem-encoding.txt Fig. 5, Table 2, Table 3, Fig. 7).

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


_RULE = "sem_trace_figures"  # one rule draws the trace analysis: the four share their inputs
TARGETS: list[Target] = [
    Target("sem", "fig5_running_jobs_cdf", fig5_running_jobs_cdf, _RULE, "CDF of the number of running jobs",
           claims=("table2_max_running",)),
    Target("sem", "table2_max_running", table2_max_running, _RULE, "Maximum number of running jobs", kind="table",
           claims=("table2_", "zero_padding")),
    Target("sem", "table3_node_hour_loss", table3_node_hour_loss, _RULE,
           "Node-hour loss of the K-largest-job encoding", kind="table", claims=("table3_",)),
    Target("sem", "fig7_k_largest_coverage", fig7_k_largest_coverage, _RULE,
           "Trace coverage of the K-largest-job encoding", claims=("fig7_",)),
    Target("sem", "claims", claims.claims_rows, _RULE, "Claims of section 3: ours vs the paper's", kind="claims",
           claims=("",)),
]
