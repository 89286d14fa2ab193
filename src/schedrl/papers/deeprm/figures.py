"""Figures 5.1-5.18 and the report tables of the SB3 DeepRM report (deeprm-sb3-report.txt).

One function per figure, named after it (``fig5_1(spec, root, png)`` ... ``fig5_18``), each saving
PNG, PDF and the plotted numbers as CSV; ``table_load130``, ``training_speed`` and
``replay_insample`` write the markdown tables of the reproduction report. ``FIGURES`` says what
each figure shows and which runs it reads (``figure_inputs``: the Snakemake input function);
``TARGETS`` lists every output.
Agents are aggregated over training seeds (mean, error bars = standard error over seeds).
Load sweeps and box plots show both evaluation protocols side by side (``dl.PROTOCOLS``: held-out,
every job counted | the report's seed-42 sequence, placed jobs only), with the report's stated
numbers drawn as black stars. ``never_placed`` draws the jobs each policy never placed, by length.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError, InputFileError
from schedrl.papers.deeprm import claims
from schedrl.papers.deeprm import evaluation as de
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import references as dr
from schedrl.papers.deeprm import training as dt
from schedrl.papers.targets import Target
from schedrl.plots import new_figure, save_figure

# ---------------------------------------------------------------------------------------------
# The report's figures 5.1-5.18: what each shows and which runs it reads.

class FigureSpec(tuple):
    """(kind, variant, algos, caption) of one report figure."""

    __slots__ = ()

    def __new__(cls, kind: str, variant: str, algos: tuple[str, ...], caption: str):
        return super().__new__(cls, (kind, variant, algos, caption))

    kind = property(lambda self: self[0])
    variant = property(lambda self: self[1])
    algos = property(lambda self: self[2])
    caption = property(lambda self: self[3])


# kinds: load (slowdown vs load), box (slowdown and completion time at box_rate), curve (learning
# curve of slowdown), reward (reward curve), curves (slowdown, reward, completion time), lengths
# (generated and/or withheld job lengths at withheld_rate). algos () = the variant's configured ones.
FIGURES: dict[str, FigureSpec] = {
    "fig5_1": FigureSpec("load", "discrete-stacked", (), "Average job slowdown at different loads (discrete, phase 1)"),
    "fig5_2": FigureSpec("box", "discrete-stacked", (), "Performance at the training rate, the report's \"130%\" (discrete, phase 1)"),
    "fig5_3": FigureSpec("box", "discrete-image", (), "Performance at the training rate, the report's \"130%\" (discrete, phase 2)"),
    "fig5_4": FigureSpec("load", "discrete-image", (), "Average job slowdown at different loads (discrete, phase 2)"),
    "fig5_5": FigureSpec("curve", "discrete-image", ("a2c",), "Learning curve of slowdown, A2C (discrete, phase 2)"),
    "fig5_6": FigureSpec("reward", "discrete-image", ("a2c",), "Reward curve of slowdown, A2C (discrete, phase 2)"),
    "fig5_7": FigureSpec("generated", "discrete-image", ("a2c",), "Fraction of jobs generated, A2C (discrete, phase 2)"),
    "fig5_8": FigureSpec("withheld", "discrete-image", ("a2c",), "Length of withheld jobs, A2C (discrete, phase 2)"),
    "fig5_9": FigureSpec("load", "multibinary-stacked", (), "Average job slowdown at different loads (multi-binary, phase 1)"),
    "fig5_10": FigureSpec("box", "multibinary-stacked", (), "Performance at the training rate, the report's \"130%\" (multi-binary, phase 1)"),
    "fig5_11": FigureSpec("curve", "multibinary-stacked", ("a2c",), "Learning curve of A2C for slowdown (multi-binary, phase 1)"),
    "fig5_12": FigureSpec("reward", "multibinary-stacked", ("a2c",), "Reward curve of A2C for slowdown (multi-binary, phase 1)"),
    "fig5_13": FigureSpec("withheld", "multibinary-stacked", ("a2c",), "Length of withheld jobs, A2C (multi-binary, phase 1)"),
    "fig5_14": FigureSpec("load", "multibinary-image", (), "Average job slowdown at different loads (multi-binary, phase 2)"),
    "fig5_15": FigureSpec("box", "multibinary-image", (), "Performance at the training rate, the report's \"130%\" (multi-binary, phase 2)"),
    "fig5_16": FigureSpec("curves", "multibinary-image", ("a2c",), "Learning curves of A2C (multi-binary, phase 2)"),
    "fig5_17": FigureSpec("curves", "multibinary-image", ("ppo",), "Learning curves of PPO (multi-binary, phase 2)"),
    "fig5_18": FigureSpec("lengths", "multibinary-image", ("a2c", "ppo"),
                          "Generated jobs and withheld job lengths at 110%, A2C and PPO (multi-binary, phase 2)"),
}


# Figures of ours beside the report's (drawn by their own function, not by a FigureSpec kind).
EXTRA_FIGURES = ("never_placed", "deeprm_agent_curve", "budget")


def figure_spec(name: str) -> FigureSpec:
    if name not in FIGURES:
        raise ConfigError(f"unknown DeepRM figure '{name}' (known: {', '.join(FIGURES)})")
    return FIGURES[name]


def figure_algos(spec: dict, name: str) -> list[str]:
    fig = figure_spec(name)
    return list(fig.algos) or list(dl.variant_spec(spec, fig.variant)["algos"])


def figure_objectives(spec: dict, name: str) -> list[str]:
    kind = figure_spec(name).kind
    if kind == "box":
        return list(spec["objectives"])
    if kind == "curves":
        return [o for o in dl.OBJECTIVES if o in spec["objectives"]] or ["slowdown"]
    return ["slowdown"]  # load sweeps, slowdown curves and job lengths: agents trained for slowdown


def figure_inputs(spec: dict, root: str | Path, name: str) -> list[Path]:
    """Files figure ``name`` reads (the Snakemake input function uses this)."""
    if name == "never_placed":
        return [p for v in spec["variants"] for p in _never_placed_inputs(spec, root, v)]
    if name == "deeprm_agent_curve":
        return _deeprm_agent_curve_inputs(spec, root)
    fig = figure_spec(name)
    runs = [dl.run_dir(root, fig.variant, a, o, s) for a in figure_algos(spec, name)
            for o in figure_objectives(spec, name) for s in dl.run_seeds(spec, a, o)]
    if fig.kind in ("load", "box"):
        out = []
        for protocol in dl.PROTOCOLS:
            out += [dl.eval_paths(r, protocol)["episodes"] for r in runs]
            out += [dl.eval_paths(dl.baseline_dir(root, fig.variant, b), protocol)["episodes"]
                    for b in spec["baselines"]]
            if deeprm_agent_in_figure(spec, name):
                out += dl.deeprm_agent_paths(spec, root, protocol=protocol)
            if fig.kind == "load":
                out += [dl.eval_paths(dl.authors_dir(root, v, n), protocol)["episodes"]
                        for v, n, _ in dl.authors_runs(spec) if v == fig.variant]
        return out
    if fig.kind in ("curve", "reward", "curves"):
        return [r / "learning_curve.csv" for r in runs] + [
            dl.eval_paths(dl.baseline_dir(root, fig.variant, b), p)["episodes"]
            for p in dl.PROTOCOLS for b in spec["baselines"]]
    return [dl.eval_paths(r, p)["jobs"] for p in dl.PROTOCOLS for r in runs]


def deeprm_agent_in_figure(spec: dict, name: str) -> bool:
    """Load sweeps whose variant shares the agent's state (and so its job model and load axis)."""
    agent = spec.get("deeprm_agent")
    fig = figure_spec(name)
    return bool(agent) and fig.kind == "load" and dl.parse_variant(fig.variant)[1] == dl.parse_variant(agent["variant"])[1]


BASELINE_STYLE = {"sjf": ("tab:blue", "--"), "packer": ("tab:orange", "--"), "first_slot": ("tab:olive", "--"),
                  "random": ("tab:gray", ":")}
AGENT_COLORS = {"dqn": "tab:purple", "a2c": "tab:red", "ppo": "tab:green", "trpo": "tab:brown",
                "maskable_ppo": "tab:olive"}


def _title(ax_or_fig, name: str, text: str) -> None:
    number = name.replace("fig", "Figure ").replace("_", ".")
    ax_or_fig.suptitle(f"{number}: {text}", fontsize=10) if hasattr(ax_or_fig, "suptitle") else None


def _paper_markers(ax, variant: str, algos, x_of, metric: str = "mean_slowdown") -> None:
    """The report's stated number of each policy as a black star at ``x_of(algo)`` (None: skip)."""
    drawn = False
    for algo in algos:
        value = claims.paper_at_130(variant, algo, metric)
        x = x_of(algo)
        if value is None or x is None:
            continue
        ax.plot([x], [value], marker="*", ms=11, color="black", ls="none",
                label=None if drawn else "report's value")
        drawn = True


HIGH_LOAD_FIGURES = ("fig5_4",)  # load sweeps whose text names the load above which agents win


def draw_load(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = figure_spec(name)
    fig, axes = new_figure(1, 2, figsize=(13, 4.8), sharey=False)
    curves = []
    for ax, protocol in zip(axes, dl.PROTOCOLS):
        curve = _draw_load_panel(ax, name, spec, root, protocol)
        curves.append(curve.assign(protocol=protocol))
    _title(fig, name, fig_spec.caption)
    table = pd.concat(curves, ignore_index=True)
    save_figure(fig, png, table)
    return table


def _draw_load_panel(ax, name: str, spec: dict, root, protocol: str) -> pd.DataFrame:
    fig_spec = figure_spec(name)
    episodes = de.episodes_table(spec, root, fig_spec.variant, objectives=["slowdown"],
                                 algos=figure_algos(spec, name), protocol=protocol)
    if deeprm_agent_in_figure(spec, name):
        episodes = pd.concat([episodes, de.deeprm_agent_episodes(spec, root, protocol)], ignore_index=True)
    authors = dr.authors_episodes(spec, root, fig_spec.variant, protocol)  # the report authors' own agents
    if authors is not None:
        episodes = pd.concat([episodes, authors[authors["objective"] == "slowdown"]], ignore_index=True)
    curve = de.load_curve(episodes)
    for (policy, algo), part in curve.groupby(["policy", "algo"], sort=False):
        part = part.sort_values("load")
        if algo in BASELINE_STYLE:
            color, ls = BASELINE_STYLE[algo]
            ax.plot(part["load_pct"], part["mean_slowdown"], ls=ls, color=color, marker="s", ms=3,
                    label=dl.label(algo))
        elif algo.startswith(dl.AUTHORS_PREFIX):
            base = algo[len(dl.AUTHORS_PREFIX):]
            ax.plot(part["load_pct"], part["mean_slowdown"], ls="-.", marker="x", ms=4,
                    color="black" if base == dl.DEEPRM_AGENT else AGENT_COLORS.get(base), label=policy)
        elif algo == dl.DEEPRM_AGENT:
            variant = spec["deeprm_agent"]["variant"]
            where = "" if variant == fig_spec.variant else f" ({variant})"
            ax.errorbar(part["load_pct"], part["mean_slowdown"], yerr=part["sem_seeds"], marker="^", ms=4,
                        capsize=2, color="black", label=policy + where)
        else:
            ax.errorbar(part["load_pct"], part["mean_slowdown"], yerr=part["sem_seeds"], marker="o", ms=3,
                        capsize=2, color=AGENT_COLORS.get(algo), label=policy)
    ax.set_xlabel("cluster load (%, eq. 4.1 per resource)")
    ax.set_ylabel("average job slowdown (-)" + (" of placed jobs" if protocol == "report" else ", all jobs"))
    box = curve[np.isclose(curve["rate"], spec["eval"]["box_rate"])]
    box_x = float(box["load_pct"].iloc[0]) if len(box) else None
    _paper_markers(ax, fig_spec.variant, list(dict.fromkeys(curve["algo"])), lambda algo: box_x)
    if name in HIGH_LOAD_FIGURES:  # section 5.1.2: A2C and TRPO ahead "at cluster load higher than 110%"
        ax.axvline(float(claims.VALUES["load_high"]), color="black", ls=":", lw=1,
                   label=f"report: agents ahead above {claims.VALUES['load_high']:g}%")
    setup = dl.protocol_setup(spec, protocol)
    how = "greedy" if setup["deterministic"] else "sampled"
    ax.set_title(f"{dl.PROTOCOL_LABEL[protocol]};\n{how} actions, {setup['episodes']} job set(s) per load; "
                 f"agents trained at rate {spec['train']['rate']:g}", fontsize=8)
    ax.legend(fontsize=7)
    return curve


def draw_box(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = figure_spec(name)
    rate = spec["eval"]["box_rate"]
    fig, axes = new_figure(2, 2, figsize=(12, 8.4))
    tables = []
    for row, protocol in enumerate(dl.PROTOCOLS):
        episodes = de.at_rate(de.episodes_table(spec, root, fig_spec.variant, algos=figure_algos(spec, name),
                                                protocol=protocol), rate)
        order = list(dict.fromkeys(episodes["policy"]))
        load = 100 * float(episodes["load"].iloc[0])
        for ax, metric, ylabel in ((axes[row][0], "mean_slowdown", "average job slowdown (-)"),
                                   (axes[row][1], "mean_completion_time", "average job completion time (time steps)")):
            data = [episodes.loc[episodes["policy"] == p, metric].to_numpy() for p in order]
            ax.boxplot(data, tick_labels=order, showmeans=True)
            first = episodes.drop_duplicates("policy").set_index("policy")
            want = {"mean_slowdown": "slowdown", "mean_completion_time": "completion_time"}[metric]

            def x_of(policy, first=first, order=order, want=want):
                return order.index(policy) + 1 if first.loc[policy, "objective"] in ("", want) else None

            drawn = False
            for policy in order:
                value = claims.paper_at_130(fig_spec.variant, first.loc[policy, "algo"], metric)
                if value is not None and x_of(policy) is not None:
                    ax.plot([x_of(policy)], [value], marker="*", ms=11, color="black", ls="none",
                            label=None if drawn else "report's value")
                    drawn = True
            if drawn:
                ax.legend(fontsize=7)
            ax.tick_params(axis="x", labelrotation=60, labelsize=7)
            ax.set_ylabel(ylabel)
            ax.set_title(f"{dl.PROTOCOL_LABEL[protocol]}: rate {rate:g} (our load {load:.0f}%; the report "
                         f"labels it 130%)", fontsize=8)
        tables.append(episodes[["policy", "algo", "objective", "seed", "rate", "load", "episode",
                                "mean_slowdown", "mean_completion_time"]].assign(protocol=protocol))
    axes[1][0].set_xlabel("policy (agents: training objective)")
    axes[1][1].set_xlabel("policy (agents: training objective)")
    _title(fig, name, fig_spec.caption)
    table = pd.concat(tables, ignore_index=True)
    save_figure(fig, png, table)
    return table


def _never_placed_inputs(spec: dict, root, variant: str) -> list[Path]:
    runs = [dl.run_dir(root, variant, a, "slowdown", s) for a in dl.variant_spec(spec, variant)["algos"]
            for s in dl.run_seeds(spec, a, "slowdown")] + [dl.baseline_dir(root, variant, b) for b in spec["baselines"]]
    authors = [dl.authors_dir(root, v, n) for v, n, _ in dl.authors_runs(spec) if v == variant]
    return [dl.eval_paths(r, "heldout")["episodes"] for r in runs + authors]


def never_placed(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Jobs never placed per episode, by job length, per policy (held-out protocol, training rate):
    the starvation that all-jobs counting exposes and placed-only counting hides."""
    rate = spec["train"]["rate"]
    variants = list(spec["variants"])
    fig, axes = new_figure(1, len(variants), figsize=(4.2 * len(variants), 4.2), squeeze=False)
    rows = []
    max_len = int(spec["env"].get("max_job_len", 15))
    for ax, variant in zip(axes[0], variants):
        episodes = de.at_rate(de.episodes_table(spec, root, variant, objectives=["slowdown"]), rate)
        authors = dr.authors_episodes(spec, root, variant, "heldout")  # the report authors' own agents
        if authors is not None:
            episodes = pd.concat([episodes, de.at_rate(authors[authors["objective"] == "slowdown"], rate)],
                                 ignore_index=True)
        lengths = np.arange(1, max_len + 1)
        for policy, part in episodes.groupby("policy", sort=False):
            counts = np.zeros(len(lengths))
            for value in de.never_placed_lengths(part["never_placed_lengths"]):
                counts[value - 1] += 1
            per_episode = counts / max(1, len(part))
            ax.plot(lengths, per_episode, marker="x" if policy.startswith("authors'") else "o", ms=3,
                    ls="-." if policy.startswith("authors'") else "-", label=policy)
            rows += [{"variant": variant, "policy": policy, "length": int(n), "never_placed_per_episode": float(c)}
                     for n, c in zip(lengths, per_episode)]
        ax.set_xlabel("job length (time steps)")
        ax.set_ylabel("jobs never placed per episode")
        ax.set_title(f"{variant}, rate {rate:g}, held-out", fontsize=9)
        ax.legend(fontsize=6)
    fig.suptitle("Jobs never placed by length (held-out job sets, episodes run to the end)", fontsize=10)
    table = pd.DataFrame(rows)
    save_figure(fig, png, table)
    return table


def _deeprm_agent_curve_inputs(spec: dict, root) -> list[Path]:
    agent = spec.get("deeprm_agent")
    return [dl.deeprm_agent_dir(root, agent["variant"], r, s) / "learning_curve.csv"
            for r, s in dl.deeprm_agent_runs(spec)] if agent else []


def authors_deeprm_curve(rate: float) -> pd.DataFrame:
    """The report authors' DeepRM-agent training slowdowns at ``rate`` (paper_values.yaml):
    columns iteration, mean_slowdown; empty when their log has no such rate."""
    prefix = f"deeprm_agent.training_slowdown.rate{rate:g}.it"
    rows = [{"iteration": int(k[len(prefix):]), "mean_slowdown": float(claims.VALUES[k])}
            for k in claims.VALUES if k.startswith(prefix)]
    return pd.DataFrame(rows, columns=["iteration", "mean_slowdown"]).sort_values("iteration")


def deeprm_agent_curve(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Learning curve of DeepRM's own agent (mean slowdown of the training episodes per iteration,
    one line per training rate, mean over seeds) with the report authors' logged slowdowns as stars:
    does our agent converge like theirs within the configured iterations?"""
    agent = spec.get("deeprm_agent")
    if not agent:
        raise ConfigError("deeprm.deeprm_agent is not configured: no DeepRM-agent learning curve to draw")
    per_it = int(agent["jobsets"]) * int(agent["trajectories"])
    fig, ax = new_figure(1, 1, figsize=(7.5, 4.6))
    tables, drawn = [], False
    for rate in dict.fromkeys(r for r, _ in dl.deeprm_agent_runs(spec)):
        runs = [de.read_csv(dl.deeprm_agent_dir(root, agent["variant"], rate, s) / "learning_curve.csv")
                for r, s in dl.deeprm_agent_runs(spec) if r == rate]
        curve = de.learning_curve(runs, per_it).assign(rate=rate)
        tables.append(curve)
        line, = ax.plot(curve["iteration"], curve["mean_slowdown"], lw=1, label=f"ours, rate {rate:g}")
        theirs = authors_deeprm_curve(rate)
        if len(theirs):
            ax.plot(theirs["iteration"], theirs["mean_slowdown"], marker="*", ms=11, ls="none",
                    color=line.get_color(), markeredgecolor="black",
                    label=f"report authors' log, rate {rate:g}" if not drawn else None)
            drawn = True
    ax.set_xlabel("training iteration")
    ax.set_ylabel("average job slowdown (-) of training episodes")
    ax.set_title(f"{agent['jobsets']} job sets x {agent['trajectories']} trajectories per iteration, "
                 f"{agent['variant']}; training episodes capped at {spec['env'].get('episode_max_length', 200)} steps",
                 fontsize=8)
    ax.legend(fontsize=7)
    fig.suptitle("DeepRM's agent (Mao et al.): learning curve", fontsize=10)
    table = pd.concat(tables, ignore_index=True)
    save_figure(fig, png, table)
    return table


def _curve_runs(spec, root, variant, algo, objective) -> list[pd.DataFrame]:
    return [de.read_csv(dl.run_dir(root, variant, algo, objective, s) / "learning_curve.csv")
            for s in dl.run_seeds(spec, algo, objective)]


def _baseline_level(spec, root, variant, metric: str) -> dict[tuple[str, str], float]:
    """Mean of ``metric`` of SJF and Packer at the training rate under each protocol:
    {(name, protocol): level} (held-out job sets; the report's in-sample seed-42 sequence)."""
    out = {}
    for protocol in dl.PROTOCOLS:
        for name in ("sjf", "packer"):
            if name in spec["baselines"]:
                episodes = de.read_csv(dl.eval_paths(dl.baseline_dir(root, variant, name), protocol)["episodes"])
                out[name, protocol] = float(de.at_rate(episodes, spec["train"]["rate"])[metric].mean())
    return out


PROTOCOL_SHORT = {"heldout": "held-out", "report": "seed-42 sequence, placed only"}


def _plot_curve(ax, curve: pd.DataFrame, metric: str, ylabel: str, algo: str, refs: dict[tuple[str, str], float]):
    ax.plot(curve["iteration"], curve[metric], color=AGENT_COLORS.get(algo), label=dl.label(algo))
    for (name, protocol), level in refs.items():
        color, ls = BASELINE_STYLE[name]
        ax.axhline(level, color=color, ls=ls if protocol == "heldout" else "-.", lw=1,
                   label=f"{dl.label(name)} ({PROTOCOL_SHORT[protocol]})")
    ax.set_xlabel("training iteration")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


# The report's statements about when a learning curve turned (paper_values key, the panel's
# metric it is about, the label): drawn as a dashed black vertical line at that iteration.
ITERATION_MARKERS = {"fig5_6": ("a2c_converged_iteration", "reward", "report: converged after ~{:g} iterations"),
                     "fig5_11": ("a2c_beats_sjf_iteration", "mean_slowdown", "report: beats SJF and Packer after {:g}")}


def _iteration_marker(ax, name: str, metric: str) -> None:
    if name in ITERATION_MARKERS and ITERATION_MARKERS[name][1] == metric:
        key, _, text = ITERATION_MARKERS[name]
        value = float(claims.VALUES[key])
        ax.axvline(value, color="black", ls="--", lw=1, label=text.format(value))
        ax.legend(fontsize=8)


def draw_curves(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = figure_spec(name)
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
        curve = de.learning_curve(_curve_runs(spec, root, fig_spec.variant, algo, objective), per_it)
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
        _iteration_marker(ax, name, metric)
    _title(fig, name, fig_spec.caption)
    table = pd.concat(tables, ignore_index=True)
    save_figure(fig, png, table)
    return table


def draw_lengths(name: str, spec: dict, root, png) -> pd.DataFrame:
    fig_spec = figure_spec(name)
    rate = spec["eval"]["withheld_rate"]
    max_len = int(dt.env_kwargs(spec, fig_spec.variant, "slowdown").get("max_job_len", 15))
    kinds = {"generated": ["generated"], "withheld": ["withheld"], "lengths": ["generated", "withheld"]}[fig_spec.kind]
    algos = list(fig_spec.algos)
    # rows: each kind under each protocol (held-out job sets, then the report's seed-42 sequence)
    fig, axes = new_figure(len(kinds) * len(dl.PROTOCOLS), len(algos), squeeze=False,
                           figsize=(5.0 * len(algos), 3.2 * len(kinds) * len(dl.PROTOCOLS)))
    tables = []
    for p, protocol in enumerate(dl.PROTOCOLS):
        for j, algo in enumerate(algos):
            jobs = pd.concat([de.read_csv(dl.eval_paths(dl.run_dir(root, fig_spec.variant, algo, "slowdown", s),
                                                        protocol)["jobs"])
                              for s in dl.run_seeds(spec, algo, "slowdown")], ignore_index=True)
            jobs = de.at_rate(jobs, rate)
            load = 100 * float(jobs["load"].iloc[0])
            frac = de.length_fractions(jobs, max_len).assign(algo=algo, rate=rate, load=jobs["load"].iloc[0],
                                                             protocol=protocol)
            tables.append(frac)
            for i, kind in enumerate(kinds):
                ax = axes[p * len(kinds) + i, j]
                column = "fraction_of_generated" if kind == "generated" else "fraction_of_withheld"
                ax.bar(frac["length"], frac[column], color="tab:blue" if kind == "generated" else "tab:red")
                if kind == "withheld":  # the report: withheld jobs were those of length 10 or above
                    ax.axvline(float(claims.VALUES["withheld_long"]) - 0.5, color="black", ls="--", lw=1,
                               label=f"report: length >= {claims.VALUES['withheld_long']:g}")
                    ax.legend(fontsize=7)
                ax.set_xlabel("job length (time steps)")
                ax.set_ylabel("fraction of generated jobs" if kind == "generated" else "fraction of withheld jobs")
                n = int(frac[kind].sum())
                ax.set_title(f"{dl.label(algo)}: {kind} jobs at load {load:.0f}% (n = {n}); "
                             f"{PROTOCOL_SHORT[protocol]}", fontsize=8)
    _title(fig, name, fig_spec.caption)
    table = pd.concat(tables, ignore_index=True)
    save_figure(fig, png, table)
    return table


DRAWERS = {"load": draw_load, "box": draw_box, "curve": draw_curves, "reward": draw_curves,
           "curves": draw_curves, "generated": draw_lengths, "withheld": draw_lengths, "lengths": draw_lengths}


def draw(name: str, spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Draw report figure ``name`` from the results under ``root`` into ``png`` (+ .pdf, .csv)."""
    return DRAWERS[figure_spec(name).kind](name, spec, root, png)


# ---------------------------------------------------------------------------------------------
# One function per report figure (the targets' functions), then the report's tables.

def fig5_1(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.1 (see ``FIGURES``)."""
    return draw("fig5_1", spec, root, png)


def fig5_2(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.2 (see ``FIGURES``)."""
    return draw("fig5_2", spec, root, png)


def fig5_3(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.3 (see ``FIGURES``)."""
    return draw("fig5_3", spec, root, png)


def fig5_4(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.4 (see ``FIGURES``)."""
    return draw("fig5_4", spec, root, png)


def fig5_5(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.5 (see ``FIGURES``)."""
    return draw("fig5_5", spec, root, png)


def fig5_6(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.6 (see ``FIGURES``)."""
    return draw("fig5_6", spec, root, png)


def fig5_7(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.7 (see ``FIGURES``)."""
    return draw("fig5_7", spec, root, png)


def fig5_8(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.8 (see ``FIGURES``)."""
    return draw("fig5_8", spec, root, png)


def fig5_9(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.9 (see ``FIGURES``)."""
    return draw("fig5_9", spec, root, png)


def fig5_10(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.10 (see ``FIGURES``)."""
    return draw("fig5_10", spec, root, png)


def fig5_11(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.11 (see ``FIGURES``)."""
    return draw("fig5_11", spec, root, png)


def fig5_12(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.12 (see ``FIGURES``)."""
    return draw("fig5_12", spec, root, png)


def fig5_13(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.13 (see ``FIGURES``)."""
    return draw("fig5_13", spec, root, png)


def fig5_14(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.14 (see ``FIGURES``)."""
    return draw("fig5_14", spec, root, png)


def fig5_15(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.15 (see ``FIGURES``)."""
    return draw("fig5_15", spec, root, png)


def fig5_16(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.16 (see ``FIGURES``)."""
    return draw("fig5_16", spec, root, png)


def fig5_17(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.17 (see ``FIGURES``)."""
    return draw("fig5_17", spec, root, png)


def fig5_18(spec: dict, root: str | Path, png: str | Path) -> pd.DataFrame:
    """Report Figure 5.18 (see ``FIGURES``)."""
    return draw("fig5_18", spec, root, png)


def table_load130_markdown(spec: dict, root) -> str:
    """Markdown table: mean slowdown and completion time of every policy at the box rate ("130%"),
    beside the report's numbers. Agents are listed under the objective they were trained for; the
    report's slowdown numbers are for slowdown-trained agents, completion times for
    completion-time-trained ones."""
    rate = spec["eval"]["box_rate"]
    lines = [f"### DeepRM (SB3 report): every policy at rate {rate:g} (the report's \"130%\")", "",
             "Mean over held-out job sets (and training seeds), every job counted, agents' actions "
             "sampled; +- is the standard error over job sets and seeds pooled. The greedy column plays the "
             "same agents greedily on the same job sets (slowdown, every job counted; heuristics are "
             "deterministic or random, so it stays empty). Paper values from the report's text "
             "(sections 5.1.1, 5.1.2).", "",
             "| variant | policy | mean slowdown | greedy | paper | mean completion time | paper |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    agent = spec.get("deeprm_agent")
    for variant in spec["variants"]:
        frame = de.at_rate(de.episodes_table(spec, root, variant), rate)
        greedy = de.episodes_table(spec, root, variant, protocol=dl.GREEDY, baselines=False)
        greedy = greedy if greedy.empty else de.at_rate(greedy, rate)  # empty: no agent of the variant here
        if agent and agent["variant"] == variant and any(np.isclose(rate, r) for r in agent["rates"]):
            frame = pd.concat([frame, de.at_rate(de.deeprm_agent_episodes(spec, root), rate)], ignore_index=True)
            greedy = pd.concat([greedy, de.at_rate(de.deeprm_agent_episodes(spec, root, dl.GREEDY), rate)],
                               ignore_index=True)
        greedy_sd = greedy.groupby(["policy", "algo", "objective"], sort=False)["mean_slowdown"].mean()
        load = float(frame["load"].iloc[0])
        for (policy, algo, objective), part in frame.groupby(["policy", "algo", "objective"], sort=False):
            cells = []
            for metric in ("mean_slowdown", "mean_completion_time"):
                values = part[metric].to_numpy(dtype=float)
                sem = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
                wanted = {"mean_slowdown": "slowdown", "mean_completion_time": "completion_time"}[metric]
                paper = claims.paper_at_130(variant, algo, metric) if objective in ("", wanted) else None
                cells += [f"{values.mean():.2f} +- {sem:.2f}", "" if paper is None else f"{paper:g}"]
                if metric == "mean_slowdown":
                    key = (policy, algo, objective)
                    cells.insert(1, f"{greedy_sd[key]:.2f}" if key in greedy_sd.index else "")
            lines.append(f"| {variant} (load {load:.0%}) | {policy} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" + authors_table_markdown(spec, root)


def authors_table_markdown(spec: dict, root) -> str:
    """The report authors' published agents (issue 40) at the box rate under both protocols, beside
    SJF and our agents of the same algorithm and objective; "" when their folder is absent."""
    runs = dl.authors_runs(spec)
    if not runs:
        return ("\nThe report authors' published agents: not played (no folder of deeprm.reference_dirs "
                f"{spec.get('reference_dirs') or []} exists).\n")
    rate = spec["eval"]["box_rate"]
    lines = ["", f"### The report authors' published agents at rate {rate:g}, both protocols", "",
             "Played in our env with SB2's integer cast (what their agents saw; DeepRM's REINFORCE agent: "
             "its own float input, the file trained at this rate); actions sampled. Held out: mean "
             "slowdown over every job of the held-out job sets; report: the seed-42 sequence, placed jobs "
             "only. Ours: the mean over our seeds of the same algorithm and objective.", "",
             "| variant | agent | metric | authors' held out | authors' report | ours held out | ours report "
             "| SJF held out | SJF report | paper |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for variant, name, _ in runs:
        algo, _, objective = name.partition("-")
        metric = "mean_completion_time" if objective == "completion_time" else "mean_slowdown"
        cells = []
        for who in ("authors", "ours", "sjf"):
            for protocol in dl.PROTOCOLS:
                cells.append(_box_mean(spec, root, variant, protocol, who, algo, objective, metric, rate))
        paper = claims.paper_at_130(variant, algo, metric)
        lines.append(f"| {variant} | {dr.authors_label(name)} | {metric.replace('mean_', '').replace('_', ' ')} | "
                     + " | ".join(cells) + f" | {'' if paper is None else f'{paper:g}'} |")
    return "\n".join(lines) + "\n"


def _box_mean(spec, root, variant, protocol, who, algo, objective, metric, rate) -> str:
    try:
        if who == "authors":
            frame = dr.authors_episodes(spec, root, variant, protocol)
            frame = frame[(frame["algo"] == dl.AUTHORS_PREFIX + algo) & (frame["objective"] == objective)]
        elif who == "sjf":
            frame = de.read_csv(dl.eval_paths(dl.baseline_dir(root, variant, "sjf"), protocol)["episodes"])
        elif algo == dl.DEEPRM_AGENT:
            frame = de.deeprm_agent_episodes(spec, root, protocol)
        elif algo in spec["variants"][variant]["algos"] and objective in spec["objectives"]:
            frame = de.episodes_table(spec, root, variant, objectives=[objective], algos=[algo], baselines=False,
                                      protocol=protocol)
        else:
            return ""
    except InputFileError:
        return ""
    if frame is None:
        return ""
    frame = de.at_rate(frame, rate)
    return f"{frame[metric].mean():.2f}" if len(frame) else ""


def training_speed_markdown(spec: dict, root) -> str:
    """Markdown table of training throughput (env steps per second) per variant and algorithm."""
    import json

    rows = []
    for variant in spec["variants"]:
        for algo, objective, seed in dl.agent_runs(spec, variant):
            path = dl.run_dir(root, variant, algo, objective, seed) / "timing.json"
            if not path.exists():
                raise InputFileError(path, "missing (train the run first)")
            t = json.loads(path.read_text())
            rows.append({"variant": variant, "algo": algo, "steps": t["steps"],
                         "wall": t["wall_time_total_s"], "rate": t["steps_per_s"] or float("nan")})
    agent = spec.get("deeprm_agent")
    for rate, seed in dl.deeprm_agent_runs(spec):
        path = dl.deeprm_agent_dir(root, agent["variant"], rate, seed) / "timing.json"
        if not path.exists():
            raise InputFileError(path, "missing (train the run first)")
        t = json.loads(path.read_text())
        rows.append({"variant": agent["variant"], "algo": dl.DEEPRM_AGENT, "steps": t["steps"],
                     "wall": t["wall_time_total_s"], "rate": t["steps_per_s"] or float("nan")})
    frame = pd.DataFrame(rows)
    lines = ["### DeepRM (SB3 report): training throughput", "",
             "Env steps per second of one training run on one CPU thread (mean over objectives and "
             "seeds; the DeepRM agent: over its training rates), and the total training wall time of "
             "the variant's runs.", "",
             "| variant | agent | runs | steps per run | steps/s | total wall time (min) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for (variant, algo), part in frame.groupby(["variant", "algo"], sort=False):
        lines.append(f"| {variant} | {dl.label(algo)} | {len(part)} | {int(part['steps'].mean())} | "
                     f"{part['rate'].mean():.0f} | {part['wall'].sum() / 60:.1f} |")
    return "\n".join(lines) + "\n"


def table_load130(spec: dict, root: str | Path, md: str | Path) -> str:
    """Every policy at the box rate (the report's "130%") beside the report's numbers (markdown)."""
    from schedrl.io import write_text

    text = table_load130_markdown(spec, root)
    write_text(md, text)
    return text


def training_speed(spec: dict, root: str | Path, md: str | Path) -> str:
    """Training throughput (env steps/s) and wall time per variant and agent (markdown)."""
    from schedrl.io import write_text

    text = training_speed_markdown(spec, root)
    write_text(md, text)
    return text


def replay_insample_markdown(spec: dict, root) -> str:
    """Markdown table: each discrete phase-2 slowdown agent's report-protocol model replayed on the
    seed-42 sequence with ``dl.REPLAY_SAMPLING_SEEDS`` sampling seeds (``de.replay_report``), its
    median and 10-90% range beside the protocol's one draw, SJF and the report's number."""
    rate = float(spec["eval"]["box_rate"])
    variant = dl.REPLAY_VARIANT
    lines = [f"### DeepRM (SB3 report): the report protocol's in-sample result replayed ({variant}, rate {rate:g})", ""]
    runs = dl.replay_runs(spec)
    if not runs:
        return "\n".join(lines + [f"No {variant} agent is trained for {dl.REPLAY_OBJECTIVE} at this scale."]) + "\n"
    sjf = None
    if "sjf" in spec["baselines"]:
        frame = de.read_csv(dl.eval_paths(dl.baseline_dir(root, variant, "sjf"), "report")["episodes"])
        sjf = float(de.at_rate(frame, rate)["mean_slowdown"].mean())
    seed42, last = dl.protocol_setup(spec, "report")["jobset_seed"], dl.REPLAY_SAMPLING_SEEDS - 1
    lines += [f"The report protocol plays one sampled episode of each agent's best-in-sample model "
              f"(best_model.zip, chosen by the checks on the seed-{seed42} sequence while training) on that "
              f"same sequence, so a win can be a lucky draw. Here that model replays the sequence with "
              f"sampling seeds 0..{last} (`schedrl deeprm replay`): mean slowdown over the placed jobs, as "
              "the protocol counts it. Below SJF: share of the replays strictly below SJF's value on the "
              "same sequence (SJF is deterministic). The protocol's draw: its own episode (sampler seeded "
              f"{seed42}), the value the claims read.", "",
              "| agent | seed | model step | replays | median | 10-90% | below SJF | the protocol's draw | SJF "
              "| paper |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for algo, seed in runs:
        folder = dl.run_dir(root, variant, algo, dl.REPLAY_OBJECTIVE, seed)
        row = de.replay_summary(de.read_csv(dl.replay_path(folder)), sjf).iloc[0]
        drawn = de.at_rate(de.read_csv(dl.eval_paths(folder, "report")["episodes"]), rate)["mean_slowdown"]
        paper = claims.paper_at_130(variant, algo, "mean_slowdown")
        cells = [dl.label(algo, dl.REPLAY_OBJECTIVE), str(seed), f"{int(row['model_step']):,}",
                 str(int(row["replays"])), f"{row['median']:.2f}", f"{row['p10']:.2f}-{row['p90']:.2f}",
                 "" if sjf is None else f"{row['share_below_sjf']:.0%}", f"{drawn.mean():.2f}",
                 "" if sjf is None else f"{sjf:.2f}", "" if paper is None else f"{paper:g}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def replay_insample(spec: dict, root: str | Path, md: str | Path) -> str:
    """The report protocol's in-sample result replayed with many sampling seeds (markdown)."""
    from schedrl.io import write_text

    text = replay_insample_markdown(spec, root)
    write_text(md, text)
    return text


def _claims_of(name: str) -> tuple[str, ...]:
    """Claim ids (prefixes) of a figure: claims about its variant."""
    short = {"discrete-image": "d2-", "discrete-stacked": "d1-", "multibinary-stacked": "mb1-",
             "multibinary-image": "mb2-"}[FIGURES[name].variant]
    return (short,)


def budget(spec: dict, root, out) -> None:
    """Each RL claim's value against the training of the agents behind it (``claims_budget.csv``)."""
    from schedrl.plots.budget import budget_figure
    from schedrl.report.convergence import read_budget_table

    budget_figure(read_budget_table(Path(root) / "claims_budget.csv"), out,
                  title="DeepRM report: RL claims against training budget")


TARGETS: list[Target] = [
    *(Target("deeprm", name, globals()[name], "deeprm_figure", spec.caption, claims=_claims_of(name))
      for name, spec in FIGURES.items()),
    Target("deeprm", "never_placed", never_placed, "deeprm_never_placed",
           "Jobs never placed by length per policy (held-out protocol): the starvation finding",
           claims=("finding-",)),
    Target("deeprm", "deeprm_agent_curve", deeprm_agent_curve, "deeprm_agent_curve",
           "Learning curve of DeepRM's own agent beside the report authors' training log"),
    Target("deeprm", "budget", budget, "deeprm_budget_figure",
           "Each RL claim's value at 1/8, 1/4, 1/2 and all of the training of the agents behind it "
           "(log x), the report's value as a line, its tolerance as a band", claims=("",)),
    Target("deeprm", "table_load130", table_load130, "deeprm_tables",
           "Every policy at the report's 130% load beside its numbers", kind="markdown", claims=("d1-", "d2-")),
    Target("deeprm", "training_speed", training_speed, "deeprm_tables",
           "Training throughput and wall time per agent", kind="markdown"),
    Target("deeprm", "replay_insample", replay_insample, "deeprm_replay_table",
           f"The report protocol's in-sample result replayed with {dl.REPLAY_SAMPLING_SEEDS} sampling seeds "
           "(discrete phase 2, slowdown): median, 10-90%, share below SJF", kind="markdown", claims=("d2-",)),
    Target("deeprm", "claims", claims.claims_rows, "deeprm_claims", "Claims of the report: ours vs the report's",
           kind="claims", claims=("",)),
]


def trained_targets(spec: dict) -> list[Target]:
    """The targets a scale that trains only some variants' agents can build (``config/paper-budget.yaml``):
    every figure whose variant trains the agents it draws, the figures of ours, tables and claims."""
    def drawn(target: Target) -> bool:
        if target.name == "deeprm_agent_curve":
            return bool(spec.get("deeprm_agent"))
        if target.name not in FIGURES:
            return True
        fig = FIGURES[target.name]
        have = dl.variant_spec(spec, fig.variant)["algos"]
        return bool(have) and set(fig.algos) <= set(have)
    return [t for t in TARGETS if drawn(t)]
