#!/usr/bin/env python3
"""Markdown tables from the JSON lines of `rsmc bench resample`, `kernels` and `checkpoint` (docs/performance.md).

    python3 scripts/tables_from_json.py [--time-ranks 1,2] [--traffic-ranks 2,4,8]
                                        [--replace-in docs/performance.md] results.jsonl ...

For `rsmc bench resample` records, prints (or, with --replace-in, writes between the lines
`<!-- tables:begin -->` and `<!-- tables:end -->` of a file) three parts:
  - resampling time: one row per (N, state bytes, scheme, implementation, weights), for each rank
    count in --time-ranks the median and minimum seconds, the memcpy median measured alongside and
    resample_to_copy_ratio;
  - traffic: one row per (ranks, weights, scheme, implementation, N, state bytes) for the rank counts
    in --traffic-ranks (particles and bytes moved, the lower bound minimum_moves, messages, partners);
  - the skipped combinations and why.
For `rsmc bench kernels` records (between `<!-- kernels tables:begin -->` and
`<!-- kernels tables:end -->`): per weight pattern, a construction table (items/s) and a sampling
table (samples/s) with one row per kernel (and per thread count for the threaded alias kernels) and one
column per n, each cell the median rate and, in parentheses, kernel_to_copy_ratio (the kernel's median
over the memcpy of the same bytes); the sampling tables end with the memcpy floor itself; then the
threaded PSA+ construction against wrs's figures (records with "reference_items_per_s"); then the three
targets of the kernels issue, each with the measured rates and whether it is met; then the skipped
kernels and why.
For the output of scripts/bench-e2e.sh (`rsmc bench e2e`, `memory`, `resample` and the peer), the
section between `<!-- e2e tables:begin -->` and `<!-- e2e tables:end -->` (scripts/e2e_tables.py), with
PNG plots written next to the --replace-in file.
For `rsmc bench checkpoint` records (between `<!-- checkpoint tables:begin -->` and
`<!-- checkpoint tables:end -->`): one row per (ranks, N, doubles per state, phase) with the
checkpoint's median seconds and GB/s, the plain write(2)/read(2) of the same bytes beside it, and
their ratio.
Every number is one the benchmark printed, only rounded for display. A key that occurs twice
keeps its last record. Standard library only.
"""
import argparse
import json
import os
import sys

from e2e_tables import render_e2e

BEGIN = "<!-- tables:begin -->"
END = "<!-- tables:end -->"
KERNELS_BEGIN = "<!-- kernels tables:begin -->"
KERNELS_END = "<!-- kernels tables:end -->"
CHECKPOINT_BEGIN = "<!-- checkpoint tables:begin -->"
CHECKPOINT_END = "<!-- checkpoint tables:end -->"
E2E_BEGIN = "<!-- e2e tables:begin -->"
E2E_END = "<!-- e2e tables:end -->"
IMPLEMENTATION_ORDER = ["roulette", "roulette-algorithm1", "allgather", "gather-root"]
KERNEL_ORDER = ["binary-search", "cutpoint", "forest", "butterfly", "alias-vose", "alias-psa", "alias-psa-plus",
                "alias-baseline", "alias-sectioned", "std-discrete", "rng"]
# The targets of the kernels issue (rates on one thread of this CPU).
VOSE_TARGET_N, VOSE_TARGET = 10 ** 7, 100e6
ALIAS_SAMPLE_TARGET = 50e6
FOREST_FROM_N = 10 ** 6


def rank_list(text):
    try:
        return sorted({int(x) for x in text.split(",") if x})
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma list of rank counts")


def load(paths):
    records = []
    for path in paths:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
        with stream:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"tables_from_json.py: {path}:{number}: not a JSON line ({e})")
                if record.get("bench") in ("resample", "kernels", "checkpoint", "e2e", "memory", "peer"):
                    records.append(record)
    if not records:
        sys.exit("tables_from_json.py: no `rsmc bench resample`, `kernels` or `checkpoint` records in " +
                 ", ".join(paths))
    return records


def seconds(x):
    if x is None:
        return "—"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.3g} ms"
    return f"{x * 1e6:.3g} µs"


def ratio(x):
    return "—" if x is None else f"{x:.3g}"


def integer(x):
    return "n/r" if x is None else f"{x:,}".replace(",", " ")


def count(n):
    """10^k for powers of ten, else the digits."""
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10 ** k and k >= 3 else str(n)


def impl_key(name):
    return IMPLEMENTATION_ORDER.index(name) if name in IMPLEMENTATION_ORDER else len(IMPLEMENTATION_ORDER)


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def render(records, time_ranks, traffic_ranks):
    measured = {}
    skipped = {}
    for r in records:
        key = (r["particles"], r["state_bytes"], r["scheme"], r["implementation"], r.get("weights", "random"),
               r["ranks"])
        if r.get("skipped"):
            skipped[(r["implementation"], r["scheme"])] = r.get("reason", "")
        else:
            measured[key] = r
    parts = []
    hosts = sorted({(r.get("host", "?"), r.get("date", "?")) for r in records})
    parts.append("Generated by `scripts/tables_from_json.py` from " + str(len(records)) + " records (" +
                 "; ".join(f"host {h}, {d}" for h, d in hosts) + ").")

    # Resampling time.
    ranks = [p for p in sorted({k[5] for k in measured}) if time_ranks is None or p in time_ranks]
    if ranks:
        configs = sorted({k[:5] for k in measured if k[5] in ranks},
                         key=lambda c: (c[4], c[0], c[1], c[2] != "systematic", c[2], impl_key(c[3])))
        header = ["weights", "N", "state B", "scheme", "implementation"]
        for p in ranks:
            label = f"{p} rank" + ("" if p == 1 else "s")
            header += [f"{label}: median", "min", "memcpy", "÷ memcpy"]
        rows = []
        for c in configs:
            row = [c[4], count(c[0]), str(c[1]), c[2], c[3]]
            for p in ranks:
                r = measured.get(c + (p,))
                if r is None:
                    row += ["", "", "", ""]
                else:
                    row += [seconds(r["seconds_median"]) + f" ({r['repeats']}×)", seconds(r["seconds_min"]),
                            seconds(r["copy_seconds_median"]), ratio(r["resample_to_copy_ratio"])]
            rows.append(row)
        parts.append("#### Resampling time (slowest rank; median over the repeats shown in parentheses)\n\n" +
                     table(header, rows) + "\n\n`memcpy`: median time of a `std::memcpy` of each rank's state "
                     "bytes, measured in the same run; `÷ memcpy`: `resample_to_copy_ratio`, the resampling "
                     "median over the memcpy median.")

    # Traffic.
    traffic = sorted((k for k in measured if k[5] > 1 and (traffic_ranks is None or k[5] in traffic_ranks)),
                     key=lambda k: (k[4], k[5], k[0], k[1], k[2] != "systematic", k[2], impl_key(k[3])))
    if traffic:
        header = ["weights", "ranks", "N", "scheme", "implementation", "particles moved", "minimum moves",
                  "bytes moved", "messages", "max partners"]
        rows = []
        for k in traffic:
            r = measured[k]
            rows.append([k[4], str(k[5]), count(k[0]), k[2], k[3], integer(r["particles_moved"]),
                         integer(r["minimum_moves"]), integer(r["bytes_moved"]), integer(r["messages"]),
                         integer(r["max_partners"])])
        parts.append("#### Traffic (totals over all ranks; exact counts)\n\n" + table(header, rows) +
                     "\n\n`minimum moves`: the lower bound for any rebalancing of that selection, "
                     "Σ_k max(0, c_k − n_k); `max partners`: the most ranks one rank exchanged particles with; "
                     "n/r: the implementation does not report the figure.")

    if skipped:
        lines = [f"- {impl} × {scheme}: {reason}" for (impl, scheme), reason in
                 sorted(skipped.items(), key=lambda x: (impl_key(x[0][0]), x[0][1]))]
        parts.append("Skipped combinations (reported as `\"skipped\": true`):\n\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"


def rate(x):
    """Items or samples per second, in millions."""
    if x is None:
        return "—"
    return f"{x / 1e9:.3g} G" if x >= 1e9 else f"{x / 1e6:.3g} M"


def kernel_key(label):
    name, _, threads = label.partition(", ")
    return (KERNEL_ORDER.index(name) if name in KERNEL_ORDER else len(KERNEL_ORDER), threads)


def kernel_label(r):
    """The kernel's row label: its name, and its thread count when that is not 1."""
    threads = r.get("threads", 1)
    return r["kernel"] if threads == 1 else f"{r['kernel']}, {threads} threads"


def reference_table(records):
    """The threaded construction against the reference figures its records carry (wrs's PSA+)."""
    rows = []
    for r in sorted((r for r in records if "reference_items_per_s" in r and not r.get("skipped")),
                    key=lambda r: (r["weights"] != "uniform", r["weights"], r["threads"], r["n"])):
        best = r["n"] / r["seconds_min"]
        rows.append([r["kernel"], r["weights"], count(r["n"]), str(r["threads"]), f"{rate(r['items_per_s'])}/s",
                     f"{rate(best)}/s", f"{rate(r['reference_items_per_s'])}/s", f"{r['ratio_to_reference']:.3g}",
                     f"{r['best_ratio_to_reference']:.3g}",
                     "met" if r["ratio_to_reference"] >= 1 else "not met"])
    if not rows:
        return None
    return ("#### Threaded construction against wrs (Hübschle-Schneider and Sanders' CPU PSA+, measured on this "
            "machine)\n\n" +
            table(["kernel", "weights", "n", "threads", "median rate", "best rate", "wrs", "ratio (median)",
                   "ratio (best)", "verdict (median)"], rows))


def render_kernels(records):
    measured, skipped = {}, {}
    for r in records:
        key = (r["weights"], kernel_label(r), r["phase"], r["n"])
        if r.get("skipped"):
            skipped[key] = r.get("reason", "")
            measured.pop(key, None)
        else:
            measured[key] = r
            skipped.pop(key, None)
    hosts = sorted({(r.get("host", "?"), r.get("date", "?")) for r in records})
    parts = ["Generated by `scripts/tables_from_json.py` from " + str(len(records)) + " `rsmc bench kernels` "
             "records (" + "; ".join(f"host {h}, {d}" for h, d in hosts) + ")."]
    patterns = sorted({k[0] for k in list(measured) + list(skipped)}, key=lambda w: (w != "uniform", w))
    sizes = sorted({k[3] for k in list(measured) + list(skipped)})

    def cell(key, field):
        if key in skipped:
            return "skipped"
        r = measured.get(key)
        if r is None:
            return ""
        return f"{rate(r[field])} ({ratio(r['kernel_to_copy_ratio'])})"

    for w in patterns:
        for phase, field, title in (("build", "items_per_s", "Construction, items/s"),
                                    ("sample", "samples_per_s", "Sampling, samples/s")):
            kernels = sorted({k[1] for k in list(measured) + list(skipped) if k[0] == w and k[2] == phase},
                             key=kernel_key)
            if not kernels:
                continue
            ns = [n for n in sizes if any((w, k, phase, n) in measured or (w, k, phase, n) in skipped
                                          for k in kernels)]
            rows = [[k] + [cell((w, k, phase, n), field) for n in ns] for k in kernels]
            note = ""
            if phase == "sample":
                floor = []
                for n in ns:
                    lines = [measured[(w, k, phase, n)] for k in kernels if (w, k, phase, n) in measured]
                    floor.append(rate(median_of([r["samples"] / r["copy_seconds_median"] for r in lines]))
                                 if lines else "")
                rows.append(["memcpy of 8 B per sample"] + floor)
                fewer = sorted({(k[3], measured[k]["samples"]) for k in measured
                                if k[0] == w and k[2] == phase and measured[k]["samples"] != k[3]})
                note = " (n samples" + "".join(f"; {count(m)} at n = {count(n)}" for n, m in fewer) + ")"
            parts.append(f"#### {title}: {w} weights{note}\n\n" +
                         table(["kernel"] + ["n = " + count(n) for n in ns], rows))
    parts.append("Each cell: the median rate over the repeats, and in parentheses `kernel_to_copy_ratio`, the "
                 "kernel's median time over the median time of a `std::memcpy` of the same bytes measured just before "
                 "it (build: the structure the kernel builds; sample: 8 bytes per sample). The `memcpy` row is that "
                 "copy as a rate (the median over the kernels' measurements). Sampling rates include the random "
                 "number generation: one Philox4x32-10 block per sample (`std-discrete`: `std::mt19937_64`); the "
                 "`rng` row is the Philox uniforms alone.")

    reference = reference_table(records)
    if reference:
        parts.append(reference)

    # The targets.
    rows = []

    def rate_of(w, k, phase, n):
        r = measured.get((w, k, phase, n))
        return None if r is None else r["items_per_s" if phase == "build" else "samples_per_s"]

    def verdict(results):
        """results: (n, met) pairs -> 'met' / 'not met' / 'met at ..., not at ...'."""
        good = [count(n) for n, ok in results if ok]
        bad = [count(n) for n, ok in results if not ok]
        if not bad:
            return "met"
        if not good:
            return "not met"
        return "met at n = " + ", ".join(good) + "; not at " + ", ".join(bad)

    for w in patterns:
        v = rate_of(w, "alias-vose", "build", VOSE_TARGET_N)
        if v is not None:
            rows.append([f"Vose construction ≥ {rate(VOSE_TARGET)}/s at n = {count(VOSE_TARGET_N)}", w,
                         f"{rate(v)}/s", "met" if v >= VOSE_TARGET else "not met"])
    for k in ("alias-baseline", "alias-sectioned"):
        for w in patterns:
            got = [(n, rate_of(w, k, "sample", n)) for n in sizes if rate_of(w, k, "sample", n) is not None]
            if got:
                rows.append([f"alias sampling ≥ {rate(ALIAS_SAMPLE_TARGET)}/s, RNG included: {k}", w,
                             ", ".join(f"{count(n)}: {rate(v)}" for n, v in got),
                             verdict([(n, v >= ALIAS_SAMPLE_TARGET) for n, v in got])])
    for w in patterns:
        got = []
        for n in sizes:
            f, b = rate_of(w, "forest", "sample", n), rate_of(w, "binary-search", "sample", n)
            if n >= FOREST_FROM_N and f is not None and b is not None:
                got.append((n, f, b))
        if got:
            rows.append(["forest sampling faster than binary search for n ≥ " + count(FOREST_FROM_N), w,
                         ", ".join(f"{count(n)}: {rate(f)} vs {rate(b)} ({f / b:.3g}×)" for n, f, b in got),
                         verdict([(n, f > b) for n, f, b in got])])
    if rows:
        parts.append("#### Targets (one thread; measured: n: samples/s)\n\n" +
                     table(["target", "weights", "measured", "verdict"], rows))

    if skipped:
        lines = sorted({(k[1], k[3], reason) for k, reason in skipped.items()}, key=lambda x: (kernel_key(x[0]), x[1]))
        parts.append("Skipped (reported as `\"skipped\": true`):\n\n" +
                     "\n".join(f"- {k} at n = {count(n)}: {reason}" for k, n, reason in lines))
    return "\n\n".join(parts) + "\n"


def render_checkpoint(records):
    latest = {}
    for r in records:
        latest[(r["ranks"], r["particles"], r["state_doubles"], r["phase"])] = r
    hosts = sorted({r["host"] for r in records})
    dates = sorted({r["date"] for r in records})
    rows = []
    for key in sorted(latest, key=lambda k: (k[0], k[1], k[2], k[3] != "write")):
        r = latest[key]
        rows.append([str(r["ranks"]), count(r["particles"]), str(r["state_doubles"]), r["phase"],
                     f"{r['bytes'] / 1e9:.3g}", seconds(r["seconds_median"]), f"{r['gb_per_s']:.3g}",
                     seconds(r["plain_seconds_median"]), f"{r['plain_gb_per_s']:.3g}",
                     ratio(r["checkpoint_to_plain_ratio"])])
    header = ["ranks", "N", "doubles", "phase", "GB", "checkpoint", "GB/s", "plain write/read", "plain GB/s",
              "checkpoint / plain"]
    return (f"Generated by `scripts/tables_from_json.py` from {len(records)} `rsmc bench checkpoint` records "
            f"(host {', '.join(hosts)}, {', '.join(dates)}); medians of {records[0]['repeats']} repeats.\n\n" +
            table(header, rows) + "\n")


def median_of(values):
    v = sorted(values)
    m = len(v) // 2
    return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])


def replace_between(path, begin_marker, end_marker, text):
    with open(path, encoding="utf-8") as f:
        document = f.read()
    begin, end = document.find(begin_marker), document.find(end_marker)
    if begin < 0 or end < begin:
        sys.exit(f"tables_from_json.py: {path} has no {begin_marker} ... {end_marker} block")
    document = document[:begin] + begin_marker + "\n" + text + document[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(document)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+",
                        help="JSON-lines files from `rsmc bench resample` or `rsmc bench kernels` (- for stdin)")
    parser.add_argument("--time-ranks", type=rank_list, help="rank counts of the time table (default: all)")
    parser.add_argument("--traffic-ranks", type=rank_list, help="rank counts of the traffic table (default: all > 1)")
    parser.add_argument("--replace-in", metavar="FILE",
                        help=f"write the tables into FILE between the lines {BEGIN} and {END} (resample) "
                             f"or {KERNELS_BEGIN} and {KERNELS_END} (kernels)")
    args = parser.parse_args()
    records = load(args.files)
    end_to_end = [r for r in records if r["bench"] in ("e2e", "memory", "peer")]
    if end_to_end:  # scripts/bench-e2e.sh output: its resampling lines belong to its own section
        end_to_end = [r for r in records if r["bench"] in ("e2e", "memory", "peer", "resample")]
        records = [r for r in records if r not in end_to_end]
    resample = [r for r in records if r["bench"] == "resample"]
    kernels = [r for r in records if r["bench"] == "kernels"]
    checkpoint = [r for r in records if r["bench"] == "checkpoint"]
    parts = []
    if resample:
        parts.append((BEGIN, END, render(resample, args.time_ranks, args.traffic_ranks)))
    if kernels:
        parts.append((KERNELS_BEGIN, KERNELS_END, render_kernels(kernels)))
    if checkpoint:
        parts.append((CHECKPOINT_BEGIN, CHECKPOINT_END, render_checkpoint(checkpoint)))
    if end_to_end:
        plot_dir = os.path.dirname(os.path.abspath(args.replace_in)) if args.replace_in else None
        parts.append((E2E_BEGIN, E2E_END, render_e2e(end_to_end, plot_dir)))
    for begin, end, text in parts:
        if args.replace_in:
            replace_between(args.replace_in, begin, end, text)
        else:
            sys.stdout.write(text)

if __name__ == "__main__":
    main()
