"""Why SEM's REINFORCE agents saturate within a few episodes (Theta, default config).

Two measurements per encoder (sem, dras) and learning rate:

1. curves: ``schedrl.papers.sem.agents.train_agent`` for the first ``--episodes`` episodes with the
   default config's Theta agent, only ``learning_rate`` changed; its ``validation.csv`` gives the
   median top action probability over the contested validation decisions after every episode
   (1.00 = a deterministic, frozen policy).
2. step: the size of the first update. Adam's first step is ``-lr * g / (|g| + eps)`` (bias
   correction makes m_hat = g and v_hat = g^2), i.e. ``lr * sign(g)`` for every weight with a
   gradient, whatever the gradient's scale: the step at another lr is the lr-0.01 step scaled by
   lr / 0.01 (checked below on the weights). On a fixed batch (the validation states where the
   initial policy has more than one valid slot), the logits before and after that one step,
   with the step applied to all layers or one layer at a time, give how far one update moves a
   logit; ``lr * (sum_j |h_j| + 1)`` is how far the step of the output layer alone can move one
   (twice that the spread between two slots)
   (h: the last hidden layer's activations).

The final test of ``train_agent`` plays a trimmed test part (``--test-jobs``, first jobs of the
split's test part), because only validation is studied here. Runs resume from ``--out`` (a rerun
prints the tables without training again); CPU seconds per run are recorded in ``cpu.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

BASE_LR = 0.01  # the lr whose first step is recorded; other lrs' first steps are it scaled


def theta_spec(encoder: str, lr: float, config: str, update_every: int = 0):
    from schedrl.papers.sem.agents import AgentSpec

    cfg = yaml.safe_load(Path(config).read_text())["sem"]["agents"]
    net = cfg["networks"]["theta"]
    hp = {**cfg["hyperparams"], "learning_rate": float(lr), **({"update_every": update_every} if update_every else {})}
    return AgentSpec(trace="theta", encoder=encoder, nodes=int(net["nodes"]), k=int(net["k"]),
                     hidden=list(net["hidden"][encoder]), reward=net["reward"],
                     reward_kwargs=dict(net.get("reward_kwargs") or {}), hyperparams=hp,
                     seed=int(cfg.get("seed", 0)), priority_queues=tuple(net.get("priority_queues", [])))


def study_split(split: Path, out: Path, test_jobs: int) -> Path:
    """The split with its test part cut to its first ``test_jobs`` jobs (train and val unchanged)."""
    dest = out / "split"
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("train.swf", "val.swf", "split.json"):
        shutil.copyfile(split / name, dest / name)
    lines = (split / "test.swf").read_text().splitlines(keepends=True)
    header = [ln for ln in lines if ln.startswith(";")]
    jobs = [ln for ln in lines if ln.strip() and not ln.startswith(";")]
    (dest / "test.swf").write_text("".join(header + jobs[:test_jobs]))
    return dest


def lr_tag(lr: float, update_every: int = 0) -> str:
    return f"lr{lr:g}" + (f"_every{update_every}" if update_every else "")


def run_curves(split: Path, out: Path, encoder: str, lr: float, episodes: int, config: str, cpu: dict,
               update_every: int = 0) -> None:
    """Train ``episodes`` episodes (resuming); after episode 1 the lr-0.01 run's weights are kept
    as ``first_step.pt`` for the step analysis (later checkpoints prune it)."""
    from schedrl.papers.sem.agents import train_agent

    spec = theta_spec(encoder, lr, config, update_every)
    folder = out / encoder / lr_tag(lr, update_every)
    key = f"{encoder}/{lr_tag(lr, update_every)}"
    c0 = time.process_time()
    if lr == BASE_LR and not update_every and not (folder / "first_step.pt").exists():
        shutil.rmtree(folder, ignore_errors=True)  # episode 1 must be trained by this call
        train_agent(split, spec, folder, episodes=1)
        shutil.copyfile(folder / "run" / "checkpoints" / "iter_1.pt", folder / "first_step.pt")
    train_agent(split, spec, folder, episodes=episodes)
    spent = time.process_time() - c0
    if spent > 1.0:  # a resumed, already finished run costs ~0: keep the training's number
        cpu[key] = cpu.get(key, 0.0) + spent


def initial_policy(spec, env):
    """The network ``train_reinforce`` starts from (torch seeded with the run's seed, then built)."""
    import torch

    from schedrl.agents.reinforce import make_policy

    torch.manual_seed(spec.seed)
    return make_policy(env, spec.reinforce_config())


def contested_states(policy, val: pd.DataFrame, spec, scale: float):
    """Observations and masks of the validation decisions with more than one valid slot, played
    greedily by ``policy`` (the states ``top_prob_median`` is taken over)."""
    from schedrl.papers.sem.agents import _make_env

    env = _make_env(val, spec, scale, None)
    obs, info = env.reset()
    states, masks = [], []
    while True:
        mask = np.asarray(info["action_mask"], dtype=bool)
        logits = np.where(mask, policy.forward_batch(obs[None])[0], -np.inf)
        if mask.sum() > 1:
            states.append(np.array(obs, copy=True))
            masks.append(mask)
        obs, _, terminated, truncated, info = env.step(int(np.argmax(logits)))
        if terminated or truncated:
            return np.stack(states), np.stack(masks)


def _logits(net, x):
    import torch

    with torch.no_grad():
        return net(torch.as_tensor(x, dtype=torch.float32)).double().numpy()


def _top_prob(logits, masks):
    z = np.where(masks, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return p.max(axis=1)


def _spread(delta, masks):
    """Per state: the largest minus the smallest logit change over the valid slots (what moves
    the softmax; a shift shared by every slot does not)."""
    hi = np.where(masks, delta, -np.inf).max(axis=1)
    lo = np.where(masks, delta, np.inf).min(axis=1)
    return hi - lo


def step_analysis(split: Path, out: Path, encoder: str, lrs, config: str) -> list[dict]:
    import torch

    from schedrl.papers.sem.agents import _make_env, time_scale_of
    from schedrl.workloads.swf import read_swf

    train, val = read_swf(split / "train.swf"), read_swf(split / "val.swf")
    scale = time_scale_of(train)
    spec = theta_spec(encoder, BASE_LR, config)
    policy = initial_policy(spec, _make_env(val.iloc[:5], spec, scale, None))
    net = policy.net
    w0 = {k: v.detach().clone() for k, v in net.state_dict().items()}
    after = torch.load(out / encoder / lr_tag(BASE_LR) / "first_step.pt", map_location="cpu", weights_only=False)
    w1 = after["model"]["weights"]
    step = {k: (w1[k] - w0[k]).double() for k in w0}
    moved = torch.cat([s.flatten() for s in step.values()])
    n_moved = int((moved.abs() > 0).sum())
    n_at_lr = int(((moved.abs() - BASE_LR).abs() < 1e-3 * BASE_LR).sum())
    states, masks = contested_states(policy, val, spec, scale)
    x = states.reshape(len(states), -1)
    base = _logits(net, x)
    # the last hidden layer's activations (input of the output layer): bounds its step's effect
    with torch.no_grad():
        h = net[:-1](torch.as_tensor(x, dtype=torch.float32)).double().numpy()
    h_l1 = np.abs(h).sum(axis=1)
    with torch.no_grad():
        conv_out = net[:4](torch.as_tensor(x, dtype=torch.float32)).double().numpy()
    conv_l1 = np.abs(conv_out).sum(axis=1)
    first_dense = net[5]  # the first hidden layer, on the convolution's outputs
    prefixes = list(dict.fromkeys(name.rsplit(".", 1)[0] for name in w0))  # conv, dense layers, output
    names = ["conv"] + [f"hidden{i}" for i in range(1, len(prefixes) - 1)] + ["output"]
    layers = dict(zip(prefixes, names))
    rows = []
    for lr in lrs:
        f = lr / BASE_LR

        def logits_with(prefixes, f=f):
            net.load_state_dict({k: (w0[k].double() + f * step[k] * (k.rsplit(".", 1)[0] in prefixes)).float()
                                 for k in w0})
            out_ = _logits(net, x)
            net.load_state_dict(w0)
            return out_

        # the first hidden layer's step alone: how far it moves a unit's input (pre-activation),
        # against lr * (|conv output|_1 + 1), reached when every weight's sign agrees with its input's
        with torch.no_grad():
            dw = f * step[f"{prefixes[1]}.weight"]
            db = f * step[f"{prefixes[1]}.bias"]
            dz1 = np.abs(conv_out @ dw.numpy().T + db.numpy())
        assert first_dense.in_features == conv_out.shape[1]
        full = logits_with(set(layers))
        spread = _spread(full - base, masks)
        row = {"encoder": encoder, "lr": lr, "states": len(x), "weights": int(moved.numel()),
               "moved_share": n_moved / moved.numel(), "at_lr_share": n_at_lr / max(n_moved, 1),
               "inputs": int(x.shape[1]), "conv_outputs": int(conv_out.shape[1]),
               "conv_out_abs_max": float(np.abs(conv_out).max()), "conv_l1_median": float(np.median(conv_l1)),
               "hidden1_dz_max": float(dz1.max()), "hidden1_dz_bound": float(lr * (conv_l1.max() + 1.0)),
               "h_last_l1_median": float(np.median(h_l1)),
               "top_p_before": float(np.median(_top_prob(base, masks))),
               "top_p_after": float(np.median(_top_prob(full, masks))),
               "spread_median": float(np.median(spread)), "spread_max": float(spread.max()),
               # the output layer's step alone: each logit moves by at most lr * (|h|_1 + 1), two in
               # opposite directions, so the spread by at most twice that
               "out_bound_max": float(2 * lr * (h_l1.max() + 1.0))}
        for prefix, label in layers.items():
            row[f"spread_max[{label}]"] = float(_spread(logits_with({prefix}) - base, masks).max())
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="results/workloads/sem/theta")
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--out", default="results/studies/sem_saturation")
    ap.add_argument("--lrs", type=float, nargs="+", default=[0.01, 0.001, 0.0001])
    ap.add_argument("--encoders", nargs="+", default=["sem", "dras"])
    ap.add_argument("--episodes", type=int, default=10, help="SEM episodes per lr")
    ap.add_argument("--dras-episodes", type=int, default=3)
    ap.add_argument("--dras-lrs", type=float, nargs="+", default=None, help="default: --lrs")
    ap.add_argument("--test-jobs", type=int, default=20)
    ap.add_argument("--update-every", type=int, default=0,
                    help="REINFORCE update_every (an update every N decisions, DRAS's batch training); "
                         "runs in their own folders; the first-step table is of the per-episode runs")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    out = Path(args.out)
    split = study_split(Path(args.split), out, args.test_jobs)
    cpu_file = out / "cpu.json"
    cpu = json.loads(cpu_file.read_text()) if cpu_file.exists() else {}
    curves = []
    for encoder in args.encoders:
        lrs = args.lrs if encoder == "sem" or args.dras_lrs is None else args.dras_lrs
        episodes = args.episodes if encoder == "sem" else args.dras_episodes
        for lr in sorted(lrs, reverse=True):
            run_curves(split, out, encoder, lr, episodes, args.config, cpu, args.update_every)
            cpu_file.write_text(json.dumps(cpu, indent=1, sort_keys=True))
            v = pd.read_csv(out / encoder / lr_tag(lr, args.update_every) / "validation.csv")
            for r in v.to_dict("records"):
                curves.append({"encoder": encoder, "lr": lr, "update_every": args.update_every,
                               **{k: r[k] for k in ("episode", "top_prob_median",
                                                                                 "head_share", "mean_wait", "return")}})
    steps = []
    if not args.update_every:
        c0 = time.process_time()
        steps = [row for encoder in args.encoders for row in step_analysis(split, out, encoder, args.lrs
                                                                            if encoder == "sem" or args.dras_lrs is None
                                                                            else args.dras_lrs, args.config)]
        cpu["step_analysis_last_call"] = time.process_time() - c0
        cpu_file.write_text(json.dumps(cpu, indent=1, sort_keys=True))
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 40)
    c = pd.DataFrame(curves)
    shown = [e for e in (1, 2, 3, 5, 10, 20, 30, 50, 60, 80, 100) if e in set(c["episode"])]
    if args.update_every:
        print(f"Runs with an update every {args.update_every} decisions (update_every):")
    print("Median top action probability on validation (contested decisions) after episode:")
    print(c.pivot_table(index=["encoder", "lr"], columns="episode", values="top_prob_median")[shown].round(3).to_string())
    from schedrl.papers.sem.claims import convergence_status

    conv = yaml.safe_load(Path(args.config).read_text())["sem"]["agents"]["convergence"]  # Fig. 8's rule
    summary = []
    for (encoder, lr), g in c.groupby(["encoder", "lr"]):
        g = g.sort_values("episode")
        top = g["top_prob_median"].to_numpy()
        sat = next((int(e) for e, p in zip(g["episode"], top) if p >= 0.99), None)
        half = next((int(e) for e, p in zip(g["episode"], top) if p >= 0.5), None)
        waits = g["mean_wait"].round(0).to_numpy()
        # the last episode whose greedy validation schedule differs from the one before it
        moved = [int(e) for e, a, b in zip(g["episode"].to_numpy()[1:], waits[1:], waits[:-1]) if a != b]
        summary.append({"encoder": encoder, "lr": lr, "episodes": len(g), "first_p>=0.5": half,
                        "first_p>=0.99": sat, "last_p": round(float(top[-1]), 3),
                        "head_share_last": float(g["head_share"].iloc[-1]),
                        "last_schedule_change": moved[-1] if moved else None,
                        "mean_wait_last": float(waits[-1]),
                        "fig8_rule": "{episode} {state}".format(**convergence_status(
                            g, tolerance=conv["tolerance"], window=conv["window"], saturation=conv["saturation"]))})
    print("\nPer run (p: median top probability; schedule change: validation mean wait differs from the episode "
          "before; fig8_rule: Fig. 8's convergence episode and state over the run's episodes):")
    print(pd.DataFrame(summary).to_string(index=False))
    suffix = f"_every{args.update_every}" if args.update_every else ""
    write = out / "tables"
    write.mkdir(exist_ok=True)
    c.to_csv(write / f"curves{suffix}.csv", index=False)
    if steps:
        s = pd.DataFrame(steps)
        print("\nFirst update (one Adam step after episode 1), on the initial policy's contested validation states:")
        print(s.T.to_string(header=False))
        s.to_csv(write / "first_step.csv", index=False)
    print(f"\nCPU seconds (process time per training run; step analysis of this call): {json.dumps(cpu)}")


if __name__ == "__main__":
    main()
