"""Figures 5.1-5.18 of the SB3 DeepRM report, drawn from evaluation and learning-curve files.

``draw(name, spec, root, png)`` draws report figure ``name`` (``fig5_1`` ... ``fig5_18``, see
``schedrl.experiments.deeprm.FIGURES``) and saves PNG, PDF and the plotted numbers as CSV.
Agents are aggregated over training seeds (mean, error bars = standard error over seeds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.experiments import deeprm as dx
from schedrl.plots import new_figure, save_figure

BASELINE_STYLE = {"sjf": ("tab:blue", "--"), "packer": ("tab:orange", "--"), "random": ("tab:gray", ":")}
AGENT_COLORS = {"dqn": "tab:purple", "a2c": "tab:red", "ppo": "tab:green", "trpo": "tab:brown",
                "maskable_ppo": "tab:olive"}


def _title(ax_or_fig, name: str, text: str) -> None:
    number = name.replace("fig", "Figure ").replace("_", ".")
    ax_or_fig.suptitle(f"{number}: {text}", fontsize=10) if hasattr(ax_or_fig, "suptitle") else None


def draw_load(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = dx.figure_spec(name)
    episodes = dx.episodes_table(spec, root, fig_spec.variant, objectives=["slowdown"],
                                 algos=dx.figure_algos(spec, name))
    if dx.deeprm_agent_in_figure(spec, name):
        episodes = pd.concat([episodes, dx.deeprm_agent_episodes(spec, root)], ignore_index=True)
    curve = dx.load_curve(episodes)
    fig, ax = new_figure(figsize=(7.2, 4.6))
    for (policy, algo), part in curve.groupby(["policy", "algo"], sort=False):
        part = part.sort_values("load")
        if algo in BASELINE_STYLE:
            color, ls = BASELINE_STYLE[algo]
            ax.plot(part["load_pct"], part["mean_slowdown"], ls=ls, color=color, marker="s", ms=3,
                    label=dx.label(algo))
        elif algo == dx.DEEPRM_AGENT:
            variant = spec["deeprm_agent"]["variant"]
            where = "" if variant == fig_spec.variant else f" ({variant})"
            ax.errorbar(part["load_pct"], part["mean_slowdown"], yerr=part["sem_seeds"], marker="^", ms=4,
                        capsize=2, color="black", label=policy + where)
        else:
            ax.errorbar(part["load_pct"], part["mean_slowdown"], yerr=part["sem_seeds"], marker="o", ms=3,
                        capsize=2, color=AGENT_COLORS.get(algo), label=policy)
    ax.set_xlabel("cluster load (%, eq. 4.1 per resource)")
    ax.set_ylabel("average job slowdown (-)")
    train = curve[np.isclose(curve["rate"], spec["train"]["rate"])]
    trained_at = f" (load {100 * float(train['load'].iloc[0]):.0f}%)" if len(train) else ""
    how = "greedy" if spec["eval"].get("deterministic") else "sampled"
    ax.set_title(f"SB3 agents trained at rate {spec['train']['rate']:g}{trained_at}, {how} actions; "
                 f"{spec['eval']['episodes']} held-out job sets per load", fontsize=8)
    ax.legend(fontsize=8)
    _title(fig, name, fig_spec.caption)
    save_figure(fig, png, curve)
    return curve


def draw_box(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = dx.figure_spec(name)
    rate = spec["eval"]["box_rate"]
    episodes = dx.at_rate(dx.episodes_table(spec, root, fig_spec.variant, algos=dx.figure_algos(spec, name)), rate)
    order = list(dict.fromkeys(episodes["policy"]))
    fig, axes = new_figure(1, 2, figsize=(11, 4.2))
    load = 100 * float(episodes["load"].iloc[0])
    for ax, metric, ylabel in ((axes[0], "mean_slowdown", "average job slowdown (-)"),
                               (axes[1], "mean_completion_time", "average job completion time (time steps)")):
        data = [episodes.loc[episodes["policy"] == p, metric].to_numpy() for p in order]
        ax.boxplot(data, tick_labels=order, showmeans=True)
        ax.tick_params(axis="x", labelrotation=60, labelsize=7)
        ax.set_ylabel(ylabel)
        ax.set_xlabel("policy (agents: training objective)")
        ax.set_title(f"{metric.replace('mean_', 'average ').replace('_', ' ')} at load {load:.0f}%", fontsize=9)
    _title(fig, name, fig_spec.caption)
    table = episodes[["policy", "algo", "objective", "seed", "rate", "load", "episode",
                      "mean_slowdown", "mean_completion_time"]]
    save_figure(fig, png, table)
    return table


def _curve_runs(spec, root, variant, algo, objective) -> list[pd.DataFrame]:
    return [dx.read_csv(dx.run_dir(root, variant, algo, objective, s) / "learning_curve.csv") for s in spec["seeds"]]


def _baseline_level(spec, root, variant, metric: str) -> dict[str, float]:
    """Mean of ``metric`` of SJF and Packer at the training rate (held-out job sets)."""
    out = {}
    for name in ("sjf", "packer"):
        if name in spec["baselines"]:
            episodes = dx.read_csv(dx.eval_paths(dx.baseline_dir(root, variant, name))["episodes"])
            out[name] = float(dx.at_rate(episodes, spec["train"]["rate"])[metric].mean())
    return out


def _plot_curve(ax, curve: pd.DataFrame, metric: str, ylabel: str, algo: str, refs: dict[str, float]):
    ax.plot(curve["iteration"], curve[metric], color=AGENT_COLORS.get(algo), label=dx.label(algo))
    for name, level in refs.items():
        color, ls = BASELINE_STYLE[name]
        ax.axhline(level, color=color, ls=ls, label=dx.label(name))
    ax.set_xlabel("training iteration")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def draw_curves(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = dx.figure_spec(name)
    algo = fig_spec.algos[0]
    per_it = int(spec["train"]["episodes_per_iteration"])
    panels = {"curve": [("slowdown", "mean_slowdown")], "reward": [("slowdown", "reward")],
              "curves": [("slowdown", "mean_slowdown"), ("slowdown", "reward"),
                         ("completion_time", "mean_completion_time")]}[fig_spec.kind]
    panels = [(o, m) for o, m in panels if o in spec["objectives"]]
    fig, axes = new_figure(1, len(panels), figsize=(max(6.0, 5.2 * len(panels)), 4.0))
    axes = np.atleast_1d(axes)
    tables = []
    for ax, (objective, metric) in zip(axes, panels):
        curve = dx.learning_curve(_curve_runs(spec, root, fig_spec.variant, algo, objective), per_it)
        tables.append(curve.assign(algo=algo, objective=objective))
        if metric == "reward":
            ax.plot(curve["iteration"], curve["mean_reward"], color=AGENT_COLORS.get(algo), label="mean reward")
            ax.plot(curve["iteration"], curve["max_reward"], color=AGENT_COLORS.get(algo), alpha=0.4,
                    label="max reward")
            ax.set_xlabel("training iteration")
            ax.set_ylabel("total reward per episode (-)")
            ax.legend(fontsize=8)
        else:
            unit = "average job slowdown (-)" if metric == "mean_slowdown" else "average completion time (time steps)"
            _plot_curve(ax, curve, metric, unit, algo, _baseline_level(spec, root, fig_spec.variant, metric))
        ax.set_title(f"trained for {objective.replace('_', ' ')}; {per_it} episodes per iteration", fontsize=8)
    _title(fig, name, fig_spec.caption)
    table = pd.concat(tables, ignore_index=True)
    save_figure(fig, png, table)
    return table


def draw_lengths(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = dx.figure_spec(name)
    rate = spec["eval"]["withheld_rate"]
    max_len = int(dx.env_kwargs(spec, fig_spec.variant, "slowdown").get("max_job_len", 15))
    kinds = {"generated": ["generated"], "withheld": ["withheld"], "lengths": ["generated", "withheld"]}[fig_spec.kind]
    algos = list(fig_spec.algos)
    fig, axes = new_figure(len(kinds), len(algos), squeeze=False)
    tables = []
    for j, algo in enumerate(algos):
        jobs = pd.concat([dx.read_csv(dx.eval_paths(dx.run_dir(root, fig_spec.variant, algo, "slowdown", s))["jobs"])
                          for s in spec["seeds"]], ignore_index=True)
        jobs = dx.at_rate(jobs, rate)
        load = 100 * float(jobs["load"].iloc[0])
        frac = dx.length_fractions(jobs, max_len).assign(algo=algo, rate=rate, load=jobs["load"].iloc[0])
        tables.append(frac)
        for i, kind in enumerate(kinds):
            ax = axes[i, j]
            column = "fraction_of_generated" if kind == "generated" else "fraction_of_withheld"
            ax.bar(frac["length"], frac[column], color="tab:blue" if kind == "generated" else "tab:red")
            ax.set_xlabel("job length (time steps)")
            ax.set_ylabel("fraction of generated jobs" if kind == "generated" else "fraction of withheld jobs")
            n = int(frac[kind].sum())
            ax.set_title(f"{dx.label(algo)}: {kind} jobs at load {load:.0f}% (n = {n})", fontsize=8)
    _title(fig, name, fig_spec.caption)
    table = pd.concat(tables, ignore_index=True)
    save_figure(fig, png, table)
    return table


DRAWERS = {"load": draw_load, "box": draw_box, "curve": draw_curves, "reward": draw_curves,
           "curves": draw_curves, "generated": draw_lengths, "withheld": draw_lengths, "lengths": draw_lengths}


def draw(name: str, spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Draw report figure ``name`` from the results under ``root`` into ``png`` (+ .pdf, .csv)."""
    return DRAWERS[dx.figure_spec(name).kind](name, spec, root, png)
