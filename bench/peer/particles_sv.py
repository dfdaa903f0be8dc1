#!/usr/bin/env python3
"""The peer comparison of `scripts/bench-peer.sh`: rsmc against the Python library `particles`
(Chopin; PyPI `particles`) on the stochastic volatility model, the same parameters and the same data.

Data: `rsmc simulate --model stochastic_volatility` writes T observations (CSV, one column) once.
Both filters then run R times each with N particles and different seeds, resampling every step
(systematic): rsmc `filter --ess-threshold 1`, `particles` a Bootstrap Feynman-Kac model with
ESSrmin = 1. Prints one JSON line per N: the mean and standard error of each log-likelihood, the
Welch t statistic of their difference (|t| < 3: they agree statistically), and the particle-steps
per second of each (rsmc: its own filter time, process start excluded; `particles`: pf.run()).

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
import re
import statistics
import subprocess
import sys
import time


def rsmc_run(rsmc, mpiexec, data, n, seed, ranks):
    cmd = mpiexec + ["-n", str(ranks), rsmc, "filter", "--model", "stochastic_volatility", "--data", data,
                     "--particles", str(n), "--seed", str(seed), "--ess-threshold", "1", "--resampling", "systematic"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    ll = float(re.search(r"log-likelihood estimate: (\S+)", out).group(1))
    # The filter's own wall time (process start excluded), from its particle-steps per second (3 digits).
    rate = float(re.search(r" s, ([0-9.eE+-]+) particle-steps/s", out).group(1))
    steps = int(re.search(r"(\d+) steps", out).group(1))
    return ll, n * steps / rate


def welch(a, b):
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    return (statistics.mean(a) - statistics.mean(b)) / math.sqrt(va + vb) if va + vb > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsmc", required=True)
    ap.add_argument("--data", required=True, help="CSV written by rsmc simulate --model stochastic_volatility")
    ap.add_argument("--particles", default="10000,100000")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--ranks", type=int, default=1, help="MPI ranks of the rsmc runs")
    ap.add_argument("--mu", type=float, default=-0.8698)
    ap.add_argument("--phi", type=float, default=0.97779)
    ap.add_argument("--sigma", type=float, default=0.1585)
    ap.add_argument("--mpiexec", default="mpiexec --oversubscribe")
    args = ap.parse_args()
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
    model = ssm.StochVol(mu=args.mu, rho=args.phi, sigma=args.sigma)
    mpiexec = args.mpiexec.split()
    for n in [int(float(x)) for x in args.particles.split(",")]:
        ours, ours_s, peer, peer_s = [], [], [], []
        for r in range(args.repeats):
            ll, s = rsmc_run(args.rsmc, mpiexec, args.data, n, r + 1, args.ranks)
            ours.append(ll)
            ours_s.append(s)
            np.random.seed(r + 1)
            fk = ssm.Bootstrap(ssm=model, data=y)
            pf = particles.SMC(fk=fk, N=n, resampling="systematic", ESSrmin=1.0, store_history=False,
                               collect=None, verbose=False)
            start = time.perf_counter()
            pf.run()
            peer_s.append(time.perf_counter() - start)
            peer.append(float(pf.logLt))
        t = welch(ours, peer)
        steps = len(y)
        rec = {
            "bench": "peer", "peer": "particles", "peer_version": getattr(particles, "__version__", "unknown"),
            "model": "stochastic_volatility", "mu": args.mu, "phi": args.phi, "sigma": args.sigma,
            "particles": n, "steps": steps, "repeats": args.repeats, "ranks": args.ranks,
            "rsmc_loglik_mean": statistics.mean(ours), "rsmc_loglik_sd": statistics.stdev(ours),
            "peer_loglik_mean": statistics.mean(peer), "peer_loglik_sd": statistics.stdev(peer),
            "welch_t": t, "agree": abs(t) < 3.0,
            "rsmc_seconds_median": statistics.median(ours_s), "peer_seconds_median": statistics.median(peer_s),
            "rsmc_particle_steps_per_s": n * steps / statistics.median(ours_s),
            "peer_particle_steps_per_s": n * steps / statistics.median(peer_s),
            "throughput_ratio": statistics.median(peer_s) / statistics.median(ours_s),
            "loadavg": open("/proc/loadavg").read().split()[:3],
            "date": time.strftime("%Y-%m-%d"), "python": sys.version.split()[0],
        }
        print(json.dumps(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
