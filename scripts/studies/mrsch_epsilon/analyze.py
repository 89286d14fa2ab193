"""Issue 25 epsilon study: the Figs. 4-7 quantities per epsilon schedule with the claims code's
helpers (schedrl.papers.mrsch.claims) and intervals (schedrl.report.convergence)."""
import glob
import re

import numpy as np
import pandas as pd

from schedrl.papers.mrsch import claims as mc
from schedrl.report import convergence as cv

m = pd.concat([pd.read_csv(f) for f in sorted(glob.glob("results/eps/metrics_*.csv"))], ignore_index=True)
j = pd.concat([pd.read_csv(f) for f in sorted(glob.glob("results/eps/jobs_*.csv"))], ignore_index=True)
base_m, base_j = m[m["eps_per"] == "-"], j[j["eps_per"] == "-"]
S = ["update", "episode", "run"]
out = []
for s in S:
    # the progress bar after each job set: its mean loss and epsilon after the set (runs stopped at 20 of 40 sets)
    log = open(f"results/eps/{s}/train.log").read()
    sets = {int(k): (float(lo), float(e)) for k, lo, e in re.findall(r"(\d+)/40 episodes[^\r\n]*?loss ([\d.e-]+), epsilon ([\d.]+)", log)}
    for frac in sorted(m.loc[m["eps_per"] == s, "fraction"].unique()):
        mm = pd.concat([base_m, m[(m["eps_per"] == s) & (m["fraction"] == frac)]], ignore_index=True)
        jj = pd.concat([base_j, j[(j["eps_per"] == s) & (j["fraction"] == frac)]], ignore_index=True)
        ours = mm[mm["method"] == "mrsch"].set_index("workload")
        k = int(round(frac * 40))
        row = {"schedule": s, "fraction": frac, "sets": k, "eps_after": sets[k][1],
               "loss_last_set": sets[k][0], "loss_last_2_sets": (sets[k][0] + sets[k - 1][0]) / 2}
        for met, col in (("mean_wait_h", "wait_h"), ("mean_slowdown", "slowdown")):
            row[f"{met}_avg"] = float(ours[met].mean())
            # mean over S1-S5 of per-workload block means: CI by resampling blocks within each workload
            blocks = [mc.job_blocks(jj[jj["workload"] == w], "mrsch", col) for w in ours.index]
            cis = [cv.bootstrap_ci(b) for b in blocks]
            row[f"{met}_per_wl"] = " ".join(f"{w}:{c[0]:.3g}[{c[1]:.3g},{c[2]:.3g}]" for w, c in zip(ours.index, cis))
            g, wl, b = mc.argmax_gain(mm, met)
            _, lo, hi = mc.gain_ci(jj, wl, col, b)
            row[f"{met}_maxgain"] = f"{g:.1%} ({wl} vs {b}) {cv.format_ci(g, lo, hi, percent=True)}"
            # paired difference vs the update schedule at the same fraction, per workload
            if s != "update":
                ref = j[(j["eps_per"] == "update") & (j["fraction"] == frac)]
                diffs = []
                for w in ours.index:
                    d, lo, hi = cv.bootstrap_diff(mc.job_blocks(jj[jj["workload"] == w], "mrsch", col),
                                                  mc.job_blocks(ref[ref["workload"] == w], "mrsch", col),
                                                  relative=True, paired=True)
                    diffs.append(f"{w}:{d:+.1%}[{lo:+.1%},{hi:+.1%}]")
                row[f"{met}_vs_update"] = " ".join(diffs)
                a = np.concatenate([mc.job_blocks(jj[jj["workload"] == w], "mrsch", col) for w in ours.index])
                b = np.concatenate([mc.job_blocks(ref[ref["workload"] == w], "mrsch", col) for w in ours.index])
                d, lo, hi = cv.bootstrap_diff(a, b, relative=True, paired=True)
                row[f"{met}_vs_update_pooled"] = f"{d:+.1%} [{lo:+.1%}, {hi:+.1%}] ({len(a)} paired blocks)"
        row["node_util_avg"], row["bb_util_avg"] = float(ours["node_util"].mean()), float(ours["bb_util"].mean())
        row["node_util"] = " ".join(f"{v:.4f}" for v in ours["node_util"])
        row["bb_util"] = " ".join(f"{v:.4f}" for v in ours["bb_util"])
        main = mm[mm["method"].isin(mc.MAIN_METHODS)]
        row["fig5_best"] = sum(all(float(p.loc[p["method"] == "mrsch", c].iloc[0]) >= float(p[c].max()) - 1e-12
                                   for c in ("node_util", "bb_util")) for _, p in main.groupby("workload"))
        row["fig7_best"] = mc.kiviat_best(mm, mc.AXES_TWO)[0]
        row["lowest_wait"] = mc.lowest(mm, "mean_wait_h")
        row["lowest_sd"] = mc.lowest(mm, "mean_slowdown")
        out.append(row)
res = pd.DataFrame(out)
res.to_csv("results/eps/summary.csv", index=False)
pd.set_option("display.width", 250, "display.max_colwidth", 200)
for r in out:
    print("\n".join(f"{k}: {v}" for k, v in r.items()), "\n")
print(base_m.groupby("method")[["mean_wait_h", "mean_slowdown", "node_util", "bb_util"]].mean())
print(base_m.to_string())
