#!/usr/bin/env python3
"""The peer comparison of scripts/bench-e2e.sh: rsmc, the reference and the scalar filter (all three
timed inside `rsmc bench e2e`) against the Python library `particles` (Chopin; PyPI `particles`) on the
stochastic volatility model, the same parameters and the same data.

Data: `rsmc simulate --model stochastic_volatility` writes T observations (CSV, one column) once.
For each N: `rsmc bench e2e --models stochastic_volatility --data CSV --repeats R` runs rsmc, the
reference and the scalar filter R times with seeds 1..R (resampling every step, systematic), and
`particles` runs R times (a Bootstrap Feynman-Kac model, ESSrmin = 1, systematic, numpy seeds 1..R).
Prints one JSON line per N: each implementation's log-likelihood mean and standard deviation, the
Welch t statistics of rsmc against `particles`, of the reference against `particles` and of rsmc
against the reference (|t| < 3 for all three: they agree statistically), and the ns per
particle-step of all four (rsmc, reference, scalar: the median repeat inside the benchmark, process
start excluded; `particles`: the median of pf.run()).

Parametrisation (models/stochastic_volatility.hpp; particles.state_space_models.StochVol):
  rsmc       x_0 ~ N(mu, sigma^2/(1-phi^2)), x_t = mu + phi (x_{t-1} - mu) + sigma eta_t, y_t ~ N(0, exp(x_t)),
             y_1 observed at x_1 (one transition after x_0)
  particles  StochVol(mu, rho=phi, sigma): X_0 ~ N(mu, sigma^2/(1-rho^2)), X_t | X_{t-1} the same AR(1),
             Y_t ~ N(0, exp(X_t)), y_1 observed at X_0
x_0 is stationary, so x_1 has the same N(mu, sigma^2/(1-phi^2)) law: both define the same likelihood
p(y_1..y_T). The script reads the parameters from `rsmc models` defaults (passed on the command line).
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import time


def rsmc_runs(rsmc, mpiexec, data, n, steps, repeats):
    """rsmc, reference and scalar on `data`: the e2e benchmark's JSON line."""
    cmd = mpiexec + ["-n", "1", rsmc, "bench", "e2e", "--models", "stochastic_volatility", "--data", data,
                     "--particles", str(n), "--steps", str(steps), "--repeats", str(repeats), "--seed", "1",
                     "--max-work", "1e12"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if len(lines) != 1 or lines[0].get("skipped"):
        sys.exit(f"particles_sv.py: unexpected output of {' '.join(cmd)}: {out}")
    return lines[0]


def welch(a, b):
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    return (statistics.mean(a) - statistics.mean(b)) / math.sqrt(va + vb) if va + vb > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsmc", required=True)
    ap.add_argument("--data", required=True, help="CSV written by rsmc simulate --model stochastic_volatility")
    ap.add_argument("--particles", default="100000,1000000")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--mu", type=float, default=-0.8698)
    ap.add_argument("--phi", type=float, default=0.97779)
    ap.add_argument("--sigma", type=float, default=0.1585)
    ap.add_argument("--mpiexec", default="mpiexec --oversubscribe")
    args = ap.parse_args()
    if args.repeats < 2:
        sys.exit("particles_sv.py: --repeats must be at least 2 (the Welch t needs a spread)")
    try:
        import numpy as np
        import particles
        from particles import state_space_models as ssm
    except ImportError as e:
        print(json.dumps({"bench": "peer", "peer": "particles", "skipped": True,
                          "reason": f"the Python library particles cannot be imported: {e}"}))
        return 0
    with open(args.data) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    header, rows = lines[0], lines[1:]
    if "," in header:
        sys.exit(f"particles_sv.py: {args.data}: expected a CSV with one column (the returns), got header '{header}'")
    y = np.array([float(row) for row in rows])
    steps = len(y)
    model = ssm.StochVol(mu=args.mu, rho=args.phi, sigma=args.sigma)
    mpiexec = args.mpiexec.split()
    for n in [int(float(x)) for x in args.particles.split(",")]:
        e2e = rsmc_runs(args.rsmc, mpiexec, args.data, n, steps, args.repeats)
        peer, peer_s = [], []
        for r in range(args.repeats):
            np.random.seed(r + 1)
            fk = ssm.Bootstrap(ssm=model, data=y)
            pf = particles.SMC(fk=fk, N=n, resampling="systematic", ESSrmin=1.0, store_history=False,
                               collect=None, verbose=False)
            start = time.perf_counter()
            pf.run()
            peer_s.append(time.perf_counter() - start)
            peer.append(float(pf.logLt))
        ours, ref = e2e["log_likelihoods"], e2e["reference_log_likelihoods"]
        t_rp, t_fp, t_rf = welch(ours, peer), welch(ref, peer), welch(ours, ref)
        peer_ns = statistics.median(peer_s) / (n * steps) * 1e9
        rec = {
            "bench": "peer", "peer": "particles", "peer_version": getattr(particles, "__version__", "unknown"),
            "model": "stochastic_volatility", "mu": args.mu, "phi": args.phi, "sigma": args.sigma,
            "particles": n, "steps": steps, "repeats": args.repeats, "ranks": 1,
            "rsmc_loglik_mean": statistics.mean(ours), "rsmc_loglik_sd": statistics.stdev(ours),
            "reference_loglik_mean": statistics.mean(ref), "reference_loglik_sd": statistics.stdev(ref),
            "peer_loglik_mean": statistics.mean(peer), "peer_loglik_sd": statistics.stdev(peer),
            "welch_t_rsmc_peer": t_rp, "welch_t_reference_peer": t_fp, "welch_t_rsmc_reference": t_rf,
            "agree": max(abs(t_rp), abs(t_fp), abs(t_rf)) < 3.0,
            "rsmc_ns_per_particle_step": e2e["ns_per_particle_step"],
            "reference_ns_per_particle_step": e2e["reference_ns_per_particle_step"],
            "scalar_ns_per_particle_step": e2e["scalar_ns_per_particle_step"],
            "peer_ns_per_particle_step": peer_ns,
            "speedup_over_peer": peer_ns / e2e["ns_per_particle_step"],
            "rsmc_to_reference": e2e["overhead_ratio_one_rank"],
            "loadavg": open("/proc/loadavg").read().split()[:3],
            "date": time.strftime("%Y-%m-%d"), "python": sys.version.split()[0],
        }
        print(json.dumps(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
