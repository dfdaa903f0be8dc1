"""The end-to-end part of docs/performance.md, from the JSON lines of scripts/bench-e2e.sh: `rsmc bench
e2e` (rsmc, the reference and the scalar filter; 1 and 2 ranks; 1 and 2 Kokkos threads), `rsmc bench
memory`, `rsmc bench resample` (the N = 10^7 target runs) and bench/peer/particles_sv.py (rsmc, reference,
scalar and the Python library `particles` on the same data). Used by scripts/tables_from_json.py
(render_e2e); PNG plots with matplotlib when it can be imported.

Tables: the targets (issue 16's speed targets, the 2-rank speed-up, the thread sweep, resampling and
memory), each with the measured value, whether it is met, by how much it is missed, and the load
average; ns per particle-step of rsmc, reference and scalar with their ratios and the Welch t of the
log-likelihoods; the thread sweep (1 and 2 threads, whole run and per phase); the phase profile; peak
memory per particle; resampling against a memcpy; the peer. Every number is one a benchmark printed,
only rounded for display.
"""
import os

PHASES = ["propagate", "weight", "reduce", "select", "rebalance", "io", "other"]
MODEL_ORDER = ["linear_gaussian", "stochastic_volatility", "lorenz96-40", "lorenz96-400"]
# The targets (CPU, this machine): issue 16 (ns per particle-step, ratios to the reference and to
# `particles`), the 2-rank speed-up, issue 14's thread sweep, resampling against a memcpy.
SV_NS_TARGET, LG_NS_TARGET, REFERENCE_RATIO_TARGET, PEER_SPEEDUP_TARGET = 10.0, 15.0, 1.5, 4.0
SPEEDUP_TARGET, RESAMPLE_TARGET = 1.7, 3.0
THREAD_SPEEDUP_TARGET, PHASE_SPEEDUP_TARGET = 1.8, 1.6
TARGET_N, RESAMPLE_N = 10 ** 6, 10 ** 7


def _count(n):
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10 ** k and k >= 3 else str(n)


def _g(x, digits=3):
    return "—" if x is None else f"{x:.{digits}g}"


def _rate(x):
    return "—" if x is None else f"{x / 1e6:.3g} M"


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def _model_key(r):
    m = r["model"]
    return (MODEL_ORDER.index(m) if m in MODEL_ORDER else len(MODEL_ORDER), m, r["particles"])


def _last(records, **match):
    """The last record whose fields equal `match` (a key that occurs twice keeps its last record)."""
    found = None
    for r in records:
        if all(r.get(k) == v for k, v in match.items()):
            found = r
    return found


def _load(r):
    """The load average recorded with a measurement (at its start where there are two)."""
    if r is None:
        return "—"
    v = r.get("loadavg_before", r.get("loadavg"))
    return (" ".join(v) if isinstance(v, list) else v) or "—"


def _sizes(records):
    """The (model, N) pairs of the records, in model order."""
    return sorted({(r["model"], r["particles"]) for r in records},
                  key=lambda k: _model_key({"model": k[0], "particles": k[1]}))


def _pair(records, model, n, key, values, skipped):
    """The last record of (model, N) for each value of `key`; None where absent or skipped (the reason
    goes to `skipped`)."""
    out = []
    for v in values:
        r = _last(records, model=model, particles=n, **{key: v})
        if r is not None and r.get("skipped"):
            skipped.append(f"- {model}, N = {_count(n)}, {key} {v}: {r['reason']}")
            r = None
        out.append(r)
    return out


def _one_thread(records):
    """The records of one-thread runs (records without "threads" predate the field: one thread)."""
    return [r for r in records if r.get("threads", 1) == 1]


def _ns(r, key="ns_per_particle_step"):
    return None if r is None or r.get("skipped") else r.get(key)


def _with_skipped(text, skipped):
    return text + ("\n\nSkipped:\n\n" + "\n".join(sorted(set(skipped))) if skipped else "")


def throughput_table(e2e):
    rows, skipped = [], []
    for model, n in _sizes(e2e):
        one, two = _pair(e2e, model, n, "ranks", (1, 2), skipped)
        if one is None and two is None:
            continue
        ref = one or two
        rows.append([model, str(ref["state_dim"]), _count(n), str(ref["steps"]),
                     _g(one and one.get("one_rank_ns_per_particle_step")), _g(ref.get("reference_ns_per_particle_step")),
                     _g(ref.get("scalar_ns_per_particle_step")), _g(one and one.get("overhead_ratio_one_rank")),
                     _g(one and one.get("scalar_ratio_one_rank")), _g(one and one.get("welch_t_rsmc_reference"), 2),
                     _g(two and two.get("ns_per_particle_step")), _g(two and two["speedup_vs_one_rank"]),
                     _load(one), _load(two)])
    header = ["model", "d", "N", "steps", "rsmc ns/particle-step (1 rank)", "reference", "scalar",
              "rsmc ÷ reference", "rsmc ÷ scalar", "Welch t rsmc vs reference", "rsmc, 2 ranks",
              "speed-up over 1 rank", "load (1-rank run)", "load (2-rank run)"]
    return _with_skipped(_table(header, rows), skipped)


def thread_table(e2e):
    """1 against 2 Kokkos threads (OpenMP build, 1 rank): the whole run and each phase, time(1) ÷ time(2)."""
    rows = []
    for model, n in _sizes(e2e):
        one = _last(e2e, model=model, particles=n, ranks=1, threads=1)
        two = _last(e2e, model=model, particles=n, ranks=1, threads=2)
        if one is None or two is None or one.get("skipped") or two.get("skipped"):
            continue
        ratio = one["seconds_median"] / two["seconds_median"]
        phases = []
        for p in PHASES[:-1]:
            t1, t2 = one["phase_" + p] * one["seconds_median"], two["phase_" + p] * two["seconds_median"]
            phases.append(_g(t1 / t2) if t2 > 0 and t1 > 0.01 * one["seconds_median"] else "—")
        rows.append([model, _count(n), _g(one["ns_per_particle_step"]), _g(two["ns_per_particle_step"]), _g(ratio)] +
                    phases + [_load(one), _load(two)])
    if not rows:
        return ("No thread sweep in the input (scripts/bench-e2e.sh runs it with RSMC_OPENMP=path/to/rsmc built "
                "against Kokkos 4 OpenMP).")
    return ("Phases under 1% of the 1-thread run show —.\n\n" +
            _table(["model", "N", "1 thread ns/particle-step", "2 threads", "1 ÷ 2 threads"] +
                   [f"{p} 1 ÷ 2" for p in PHASES[:-1]] + ["load (1 thread)", "load (2 threads)"], rows))


def phase_table(e2e):
    rows = []
    for r in sorted((r for r in e2e if not r.get("skipped")),
                    key=lambda r: (_model_key(r), r["ranks"], r.get("threads", 1))):
        rows.append([r["model"], _count(r["particles"]), str(r["ranks"]), str(r.get("threads", 1))] +
                    [f"{100 * r['phase_' + p]:.1f}%" for p in PHASES] + [_g(r["seconds_median"])])
    return _table(["model", "N", "ranks", "threads"] + PHASES + ["run s"], rows)


def memory_table(memory):
    rows, skipped = [], []
    for model, n in _sizes(memory):
        fw, ref, scalar = _pair(memory, model, n, "implementation", ("framework", "reference", "scalar"), skipped)
        if fw is None and ref is None and scalar is None:
            continue
        base = fw or ref or scalar
        rows.append([model, _count(n), _g(fw and fw["peak_bytes_per_particle"]),
                     _g(ref and ref["peak_bytes_per_particle"]), _g(scalar and scalar["peak_bytes_per_particle"]),
                     _g(base["state_bytes_per_particle"]), _g(base["target_bytes_per_particle"]),
                     _g(fw and fw["peak_to_target_ratio"]), _load(fw)])
    header = ["model", "N", "rsmc B/particle", "reference B/particle", "scalar B/particle", "state B/particle",
              "target 3·state + 64", "rsmc ÷ target", "load"]
    return _with_skipped(_table(header, rows), skipped)


def resample_table(resample):
    rows = []
    for r in sorted((r for r in resample if not r.get("skipped")), key=lambda r: (r["particles"], r["ranks"])):
        rows.append([_count(r["particles"]), str(r["ranks"]), r["implementation"], r["scheme"],
                     f"{r['seconds_median'] * 1e3:.3g} ms", f"{r['copy_seconds_median'] * 1e3:.3g} ms",
                     _g(r["resample_to_copy_ratio"]), r.get("loadavg", "—")])
    return _table(["N", "ranks", "implementation", "scheme", "resample (median)", "memcpy (median)",
                   "÷ memcpy", "load"], rows)


def _mean_sd(r, name):
    m, sd = r.get(name + "_loglik_mean"), r.get(name + "_loglik_sd")
    return "—" if m is None else f"{m:.3f} ± {sd:.3f}"


def peer_table(peer):
    lines = [r for r in peer if r.get("skipped")]
    if lines:
        return "The peer comparison was skipped: " + lines[-1]["reason"]
    rows = []
    for r in sorted(peer, key=lambda r: r["particles"]):
        rows.append([_count(r["particles"]), str(r["steps"]), str(r["repeats"]), _mean_sd(r, "rsmc"),
                     _mean_sd(r, "reference"), _mean_sd(r, "peer"), _g(r.get("welch_t_rsmc_peer"), 2),
                     _g(r.get("welch_t_reference_peer"), 2), _g(r.get("welch_t_rsmc_reference"), 2),
                     "yes" if r.get("agree") else "NO", _g(r.get("rsmc_ns_per_particle_step")),
                     _g(r.get("reference_ns_per_particle_step")), _g(r.get("scalar_ns_per_particle_step")),
                     _g(r.get("peer_ns_per_particle_step")), _g(r.get("speedup_over_peer")), " ".join(r["loadavg"])])
    version = peer[-1].get("peer_version", "?")
    return (f"`particles` {version}; the same {peer[-1]['steps']} observations for all; log-likelihood mean ± sd "
            "over the repeats (different seeds); Welch t of the differences of the means (|t| < 3 for all three "
            "pairs: agree); rsmc, reference and scalar timed inside `rsmc bench e2e`, `particles` around pf.run().\n\n" +
            _table(["N", "T", "repeats", "rsmc log-lik", "reference log-lik", "particles log-lik", "t rsmc−particles",
                    "t reference−particles", "t rsmc−reference", "agree", "rsmc ns/particle-step", "reference",
                    "scalar", "particles", "particles ÷ rsmc (time)", "load"], rows))


def targets(e2e, memory, resample, peer, sweep):
    out = []

    def line(name, value, target, met, record):
        verdict = "—" if value is None else ("**met**" if met else "**missed**")
        bound = float(target.split()[-1])
        gap = "—" if value is None or met else (f"{value / bound:.3g}× the bound" if target.startswith("≤")
                                                  else f"{bound / value:.3g}× short")
        out.append([name, _g(value), target, verdict, gap, _load(record)])

    def at_most(name, value, bound, record):
        line(name, value, f"≤ {bound}", value is not None and value <= bound, record)

    def at_least(name, value, bound, record):
        line(name, value, f"≥ {bound}", value is not None and value >= bound, record)

    one_thread = _one_thread(e2e)  # the sweep's lines (build "openmp") are not in e2e
    sv = _last(one_thread, model="stochastic_volatility", particles=TARGET_N, ranks=1)
    lg = _last(one_thread, model="linear_gaussian", particles=TARGET_N, ranks=1)
    l96 = _last(one_thread, model="lorenz96-40", particles=TARGET_N, ranks=1)
    at_most("SV, N = 10^6, 1 rank, 1 thread: rsmc ns per particle-step", _ns(sv, "one_rank_ns_per_particle_step"),
            SV_NS_TARGET, sv)
    at_most("SV, N = 10^6: rsmc ÷ reference", _ns(sv, "overhead_ratio_one_rank"), REFERENCE_RATIO_TARGET, sv)
    pr = _last([r for r in peer if not r.get("skipped")], particles=TARGET_N)
    at_least("SV, N = 10^6: rsmc speed ÷ `particles`", pr and pr.get("speedup_over_peer"), PEER_SPEEDUP_TARGET, pr)
    at_most("linear Gaussian d = 2, N = 10^6: rsmc ns per particle-step", _ns(lg, "one_rank_ns_per_particle_step"),
            LG_NS_TARGET, lg)
    at_most("Lorenz-96 d = 40, N = 10^6: rsmc ÷ reference", _ns(l96, "overhead_ratio_one_rank"),
            REFERENCE_RATIO_TARGET, l96)
    lg2 = _last(one_thread, model="linear_gaussian", particles=TARGET_N, ranks=2)
    at_least("speed-up of 2 ranks over 1, linear Gaussian, N = 10^6", _ns(lg2, "speedup_vs_one_rank"), SPEEDUP_TARGET, lg2)
    for model in ("stochastic_volatility", "linear_gaussian"):
        t1 = _last(sweep, model=model, particles=TARGET_N, ranks=1, threads=1)
        t2 = _last(sweep, model=model, particles=TARGET_N, ranks=1, threads=2)
        ok = t1 is not None and t2 is not None and not t1.get("skipped") and not t2.get("skipped")
        ratio = t1["seconds_median"] / t2["seconds_median"] if ok else None
        at_least(f"{model}, N = 10^6: 1 thread ÷ 2 threads (Kokkos OpenMP)", ratio, THREAD_SPEEDUP_TARGET, t2)
        worst = None
        if ok:
            for p in PHASES[:-1]:
                a, b = t1["phase_" + p] * t1["seconds_median"], t2["phase_" + p] * t2["seconds_median"]
                if b > 0 and a > 0.01 * t1["seconds_median"]:
                    worst = a / b if worst is None else min(worst, a / b)
        at_least(f"{model}, N = 10^6: slowest phase, 1 thread ÷ 2 threads", worst, PHASE_SPEEDUP_TARGET, t2)
    rs = _last(resample, particles=RESAMPLE_N, ranks=1, implementation="roulette", scheme="systematic")
    at_most("resampling ÷ memcpy, systematic, search, N = 10^7, 1 rank",
            None if rs is None or rs.get("skipped") else rs["resample_to_copy_ratio"], RESAMPLE_TARGET, rs)
    for r in sorted((r for r in memory if r["particles"] == RESAMPLE_N and r["implementation"] == "framework"),
                    key=_model_key):
        v = None if r.get("skipped") else r["peak_to_target_ratio"]
        at_most(f"peak memory ÷ (3 × state + 64 B) per particle, {r['model']}, N = 10^7", v, 1, r)
    return _table(["target", "measured", "required", "verdict", "missed by", "load"], out)


def reading(e2e, resample):
    """Generated sentences: how far each timing target is, and what the phase profile ranks first."""
    out = []
    for model in MODEL_ORDER:
        done = [r for r in _one_thread(e2e) if r["model"] == model and r["ranks"] == 1 and not r.get("skipped")]
        if not done:
            continue
        r = max(done, key=lambda r: r["particles"])
        ranked = sorted(PHASES, key=lambda p: -r["phase_" + p])
        shares = ", ".join(f"{p} {100 * r['phase_' + p]:.0f}%" for p in ranked[:4])
        out.append(f"- {model}, N = {_count(r['particles'])}, 1 rank: {shares} of the run time; rsmc "
                   f"{_g(r.get('ns_per_particle_step'))} ns per particle-step, {_g(r.get('overhead_ratio_one_rank'))}× "
                   f"the reference filter's time and {_g(r.get('scalar_ratio_one_rank'))}× the scalar filter's.")
    for ranks in (1, 2):
        rs = _last(resample, particles=RESAMPLE_N, ranks=ranks, implementation="roulette", scheme="systematic")
        if rs is None or rs.get("skipped"):
            continue
        moved = rs["particles"] * rs["state_bytes"] / ranks  # state bytes per rank, read once and written once
        out.append(f"- Resampling at N = {_count(RESAMPLE_N)}, {ranks} rank(s): the memcpy streams "
                   f"{2 * moved / rs['copy_seconds_median'] / 1e9:.3g} GB/s (read + write); the resampling, "
                   f"{rs['resample_to_copy_ratio']:.3g}× as long, moves the same state bytes at an effective "
                   f"{2 * moved / rs['seconds_median'] / 1e9:.3g} GB/s.")
    return "\n".join(out) if out else "No measurements."


def before_after_table(before, e2e, resample):
    """Lines of an older build ("build": "before", scripts/bench-e2e.sh BEFORE=...) against this one."""
    rows = []
    for b in sorted((r for r in before if r["bench"] == "e2e" and not r.get("skipped")), key=_model_key):
        a = _last(e2e, model=b["model"], particles=b["particles"], ranks=1, steps=b["steps"])
        if a is None or a.get("skipped"):
            continue
        rows.append([f"e2e {b['model']}, N = {_count(b['particles'])}, 1 rank (run time)", _g(b["seconds_median"]) + " s",
                     _g(a["seconds_median"]) + " s", _g(b["seconds_median"] / a["seconds_median"]),
                     f"reduce {100 * b['phase_reduce']:.0f}% → {100 * a['phase_reduce']:.0f}%, select "
                     f"{100 * b['phase_select']:.0f}% → {100 * a['phase_select']:.0f}%, rebalance "
                     f"{100 * b['phase_rebalance']:.0f}% → {100 * a['phase_rebalance']:.0f}%; "
                     f"÷ anchor {_g(b.get('overhead_ratio_one_rank'))} → {_g(a.get('overhead_ratio_one_rank'))}",
                     f"{_load(b)} → {_load(a)}"])
    for b in (r for r in before if r["bench"] == "resample" and not r.get("skipped")):
        a = _last(resample, particles=b["particles"], ranks=b["ranks"], implementation=b["implementation"],
                  scheme=b["scheme"])
        if a is None or a.get("skipped"):
            continue
        rows.append([f"resample {b['scheme']}, N = {_count(b['particles'])}, {b['ranks']} rank",
                     f"{b['seconds_median'] * 1e3:.3g} ms", f"{a['seconds_median'] * 1e3:.3g} ms",
                     _g(b["seconds_median"] / a["seconds_median"]),
                     f"÷ memcpy {_g(b['resample_to_copy_ratio'])} → {_g(a['resample_to_copy_ratio'])}",
                     f"{_load(b)} → {_load(a)}"])
    if not rows:
        return "No lines of an older build in the input (run scripts/bench-e2e.sh with BEFORE=old/rsmc)."
    return ("The two builds ran at different times of the same session, so under different load; the "
            "ratios measured within one run (÷ memcpy) compare better than the times. (Builds before issue 16 "
            "divided by the hand-written filter, now `scalar`; after it by the reference filter.)\n\n" +
            _table(["measurement", "before", "after", "speed-up", "detail", "load before → after"], rows))


def plots(e2e, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    done = [r for r in _one_thread(e2e) if not r.get("skipped")]
    models = [m for m in MODEL_ORDER if any(r["model"] == m for r in done)]
    written = []
    fig, axes = plt.subplots(1, len(models), figsize=(4 * len(models), 3.4), squeeze=False)
    for ax, m in zip(axes[0], models):
        for ranks, label, key in ((1, "rsmc, 1 rank", "particle_steps_per_s"), (2, "rsmc, 2 ranks", "particle_steps_per_s"),
                                  (1, "reference", "reference_particle_steps_per_s"),
                                  (1, "scalar", "scalar_particle_steps_per_s")):
            pts = sorted((r["particles"], r[key]) for r in done if r["model"] == m and r["ranks"] == ranks and r.get(key))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(m)
        ax.set_xlabel("particles N")
        ax.set_ylabel("particle-steps / s")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, "perf-e2e-throughput.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    bars = [r for r in sorted(done, key=_model_key) if r["ranks"] == 1]
    if bars:
        fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(bars)), 3.6))
        bottom = [0.0] * len(bars)
        for p in PHASES:
            vals = [r["phase_" + p] for r in bars]
            ax.bar(range(len(bars)), vals, bottom=bottom, label=p)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([f"{r['model']}\n{_count(r['particles'])}" for r in bars], rotation=90, fontsize=7)
        ax.set_ylabel("fraction of run time (1 rank)")
        ax.legend(fontsize=7, ncol=4)
        fig.tight_layout()
        path = os.path.join(out_dir, "perf-e2e-phases.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def render_e2e(records, plot_dir=None):
    before = [r for r in records if r.get("build") == "before"]
    sweep = [r for r in records if r.get("build") == "openmp" and r["bench"] == "e2e"]
    records = [r for r in records if r.get("build") not in ("before", "openmp")]
    e2e = [r for r in records if r["bench"] == "e2e"]
    memory = [r for r in records if r["bench"] == "memory"]
    resample = [r for r in records if r["bench"] == "resample"]
    peer = [r for r in records if r["bench"] == "peer"]
    hosts = sorted({r.get("host", "?") for r in e2e + memory + resample if r.get("host")})
    dates = sorted({r.get("date", "?") for r in records if r.get("date")})
    parts = [f"Generated by `scripts/tables_from_json.py` from {len(records)} records of `scripts/bench-e2e.sh` "
             f"(host {', '.join(hosts)}, {', '.join(dates)}). Load is /proc/loadavg (1, 5, 15 min) when the "
             "measurement started; this machine has 2 cores.",
             "#### Targets\n\n" + targets(e2e, memory, resample, peer, sweep),
             "#### Reading (generated from the same records)\n\n" + reading(e2e, resample),
             "#### rsmc, reference and scalar: ns per particle-step, ratios, Welch t\n\n" +
             throughput_table(_one_thread(e2e)),
             "#### Thread sweep (Kokkos OpenMP build, 1 rank)\n\n" + thread_table(sweep),
             "#### Phase profile (fractions of the run time; `other` is what no phase timer covers)\n\n" +
             phase_table(e2e),
             "#### Peak memory per particle (VmHWM growth over the run ÷ particles)\n\n" + memory_table(memory),
             "#### Resampling against a memcpy of the same bytes\n\n" + resample_table(resample),
             "#### Peer: the Python library `particles`, stochastic volatility\n\n" + peer_table(peer),
             "#### Before and after this round of optimisation (the older build measured in the same session)\n\n" +
             before_after_table(before, e2e, resample)]
    if plot_dir is not None:
        for path in plots(e2e, plot_dir):
            parts.append(f"![{os.path.basename(path)}]({os.path.basename(path)})")
    return "\n\n".join(parts) + "\n"
