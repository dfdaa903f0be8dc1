#!/usr/bin/env python3
"""Plot an rsmc result file: filtered mean +- 2 sd per state component (with the true state when the
data were simulated), the effective sample size, and the running log-likelihood estimate. Or plot the
chains of `rsmc pmmh`: per parameter the trace of each chain and the marginal posterior density.

    python3 tools/plot.py result.h5 [-o result.png] [--components 0,1] [--smoothed smoothed.h5]
    python3 tools/plot.py chains.h5 [-o chains.png]

With --smoothed (the output of `rsmc smooth`), the smoothed mean +- 2 sd of the recorded steps is drawn
over the filtered one.

Needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib). Writes a PNG (default: the
result file's name with .png) and prints its path.
"""
import argparse
import os
import sys

# A missing module is reported after the arguments are parsed, so that --help works without them.
try:
    import h5py
    import matplotlib
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt
    import numpy as np
    missing_module = None
except ImportError as e:
    missing_module = e.name


def read_smoothed(path):
    """(steps, mean, sd) of an `rsmc smooth` output; exits with a clear message otherwise."""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        sys.exit(f"plot.py: cannot open '{path}': {e}")
    with f:
        for name in ("steps", "smoothed_mean", "smoothed_variance"):
            if name not in f:
                sys.exit(f"plot.py: '{path}' has no dataset '/{name}'; expected an `rsmc smooth` output")
        return (np.asarray(f["steps"]), np.asarray(f["smoothed_mean"]),
                np.sqrt(np.maximum(np.asarray(f["smoothed_variance"]), 0.0)))


def text_attribute(f, name):
    value = f.attrs.get(name, "")
    return value.decode() if isinstance(value, bytes) else str(value)


def plot_chains(f, path, output):
    """Trace plots (one line per chain) and pooled marginal densities of an `rsmc pmmh` output."""
    for name in ("theta", "iteration"):
        if name not in f:
            sys.exit(f"plot.py: '{path}' has no dataset '/{name}'; expected an rsmc pmmh output")
    theta = np.asarray(f["theta"])  # chains x kept x d
    iteration = np.asarray(f["iteration"])
    names = text_attribute(f, "parameter_names").split(",")
    chains, _, d = theta.shape
    fig, axes = plt.subplots(d, 2, figsize=(10, 2.6 * d), squeeze=False,
                             gridspec_kw={"width_ratios": [2.2, 1]})
    for j in range(d):
        label = names[j] if len(names) == d else f"theta[{j}]"
        for c in range(chains):
            axes[j, 0].plot(iteration, theta[c, :, j], lw=0.6, label=f"chain {c}")
        axes[j, 0].set_ylabel(label)
        axes[j, 1].hist(theta[:, :, j].ravel(), bins=40, density=True, color="tab:blue", alpha=0.7)
        axes[j, 1].axvline(theta[:, :, j].mean(), color="black", lw=1.0, ls="--", label="posterior mean")
        axes[j, 1].set_xlabel(label)
        axes[j, 1].set_yticks([])
    axes[0, 0].legend(loc="upper right", fontsize=8)
    axes[0, 1].legend(loc="upper right", fontsize=8)
    axes[-1, 0].set_xlabel("iteration")
    fig.suptitle(f"rsmc pmmh: {text_attribute(f, 'model')}, {chains} chain{'s' if chains > 1 else ''}, "
                 f"{theta.shape[1]} kept draws each")
    fig.tight_layout()
    fig.savefig(output, dpi=110)
    print(output)


def main():
    # The whole docstring, as written (argparse would otherwise reflow it into one paragraph).
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result", help="an rsmc filter result file or rsmc pmmh output (.h5)")
    parser.add_argument("-o", "--output", help="the PNG to write (default: RESULT with .png)")
    parser.add_argument("--components", help="state components to plot, a comma list (default: up to the first 4)")
    parser.add_argument("--smoothed", help="an `rsmc smooth` output (.h5) to overlay: smoothed mean +- 2 sd")
    args = parser.parse_args()
    if missing_module:
        sys.exit(f"plot.py: {missing_module} is missing; install python3-h5py and python3-matplotlib (apt) or h5py "
                 "and matplotlib (pip)")
    smoothed = read_smoothed(args.smoothed) if args.smoothed else None

    try:
        f = h5py.File(args.result, "r")
    except OSError as e:
        sys.exit(f"plot.py: cannot open '{args.result}': {e}")
    with f:
        if "chain_format_version" in f.attrs:
            return plot_chains(f, args.result, args.output or os.path.splitext(args.result)[0] + ".png")
        for name in ("ess", "filtered_mean", "filtered_variance", "log_likelihood_increment"):
            if name not in f:
                sys.exit(f"plot.py: '{args.result}' has no dataset '/{name}'; expected an rsmc result file")
        mean = np.asarray(f["filtered_mean"])
        sd = np.sqrt(np.maximum(np.asarray(f["filtered_variance"]), 0.0))
        ess = np.asarray(f["ess"])
        increments = np.asarray(f["log_likelihood_increment"])
        truth = np.asarray(f["true_state"]) if "true_state" in f else None
        resampled = np.asarray(f["resampled"]) if "resampled" in f else None
        model = f.attrs.get("model", "")
        particles = f.attrs.get("particles", None)
        model = model.decode() if isinstance(model, bytes) else str(model)
        names = f.attrs.get("state_names", "")
        names = (names.decode() if isinstance(names, bytes) else str(names)).split(",") if names else []

    steps, d = mean.shape
    t = np.arange(1, steps + 1)
    if args.components:
        try:
            components = [int(c) for c in args.components.split(",")]
        except ValueError:
            sys.exit(f"plot.py: --components '{args.components}' is not a comma list of integers")
        bad = [c for c in components if not 0 <= c < d]
        if bad:
            sys.exit(f"plot.py: --components {bad} out of range; the state has {d} components (0..{d - 1})")
    else:
        components = list(range(min(d, 4)))

    rows = len(components) + 2
    fig, axes = plt.subplots(rows, 1, figsize=(9, 2.2 * rows), sharex=True)
    for ax, c in zip(axes, components):
        ax.fill_between(t, mean[:, c] - 2 * sd[:, c], mean[:, c] + 2 * sd[:, c], color="tab:blue", alpha=0.25,
                        label="filtered mean ± 2 sd")
        ax.plot(t, mean[:, c], color="tab:blue", lw=1.2)
        if smoothed is not None and c < smoothed[1].shape[1]:
            st, sm, ssd = smoothed
            ax.fill_between(st, sm[:, c] - 2 * ssd[:, c], sm[:, c] + 2 * ssd[:, c], color="tab:orange", alpha=0.25,
                            label="smoothed mean ± 2 sd")
            ax.plot(st, sm[:, c], color="tab:orange", lw=1.2)
        if truth is not None:
            ax.plot(t, truth[:, c], color="black", lw=0.9, ls="--", label="true state")
        ax.set_ylabel(names[c] if len(names) == d else f"x[{c}]")
        ax.legend(loc="upper right", fontsize=8)
    ax = axes[-2]
    ax.plot(t, ess, color="tab:green", lw=1.2)
    if resampled is not None and resampled.any():
        ax.plot(t[resampled == 1], ess[resampled == 1], "o", ms=3, color="tab:red", label="resampled after")
        ax.legend(loc="upper right", fontsize=8)
    ax.set_ylabel("ESS")
    ax = axes[-1]
    ax.plot(t, np.cumsum(increments), color="tab:purple", lw=1.2)
    ax.set_ylabel("log-likelihood")
    ax.set_xlabel("step t")
    title = f"rsmc: {model}" + (f", {particles} particles" if particles is not None else "")
    fig.suptitle(title)
    fig.tight_layout()
    out = args.output or os.path.splitext(args.result)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
