#!/usr/bin/env python3
"""Checks the libquadmath reference of tests/math/math_accuracy.cpp against mpmath at 100 digits.

Reads the lines `function x y reference` that `math_accuracy --dump N` writes (x, y as C hex
floats, the reference with 41 significant digits) and reports, per function, the largest error of
the reference in ulp of a double at the exact value. The accuracy test measures rsmc::math against
that reference with a bound of 2 ulp, so the reference must be far more accurate: this check fails
(exit 1) if any reference is off by more than 1e-3 double ulp, or is NaN/infinite where the exact
value is not (or the reverse). The chain of trust: mpmath -> libquadmath -> rsmc::math.

    math_accuracy --dump 100000 | tests/math/validate_reference.py
"""
import sys
import time

try:
    import mpmath as mp
except ImportError:
    print('SKIPPED: Python has no mpmath (pip install mpmath, or the python3-mpmath package)')
    sys.exit(77)

mp.mp.dps = 100
BOUND_ULP = mp.mpf('1e-3')


def exact(name, x, y):
    x, y = mp.mpf(x), mp.mpf(y)
    if name == 'exp':
        return mp.exp(x)
    if name == 'expm1':
        return mp.expm1(x)
    if name == 'log':
        return mp.log(x) if x > 0 else (mp.ninf if x == 0 else mp.nan)
    if name == 'log1p':
        return mp.log1p(x) if x > -1 else (mp.ninf if x == -1 else mp.nan)
    if name == 'sin_2pi':
        return mp.sinpi(2 * x)
    if name == 'cos_2pi':
        return mp.cospi(2 * x)
    if name == 'sin':
        return mp.sin(x)
    if name == 'cos':
        return mp.cos(x)
    if name == 'lgamma':
        return mp.inf if x == 0 else mp.loggamma(x).real
    if name == 'pow':
        if x == 0:
            return mp.mpf(1) if y == 0 else (mp.mpf(0) if y > 0 else mp.inf)
        return mp.power(x, y)
    raise ValueError(f'unknown function {name!r}')


def ulp_of_double_at(v):
    """Spacing of doubles at |v| (2^-1074 in the subnormal range)."""
    a = abs(v)
    if a < mp.ldexp(1, -1022):
        return mp.ldexp(1, -1074)
    e = int(mp.floor(mp.log(a, 2)))
    if mp.ldexp(1, e) > a:  # log rounding at a power of two
        e -= 1
    elif mp.ldexp(1, e + 1) <= a:
        e += 1
    return mp.ldexp(1, e - 52)


def main():
    start = time.time()
    worst = {}
    count = {}
    failures = 0
    for line in sys.stdin:
        name, xs, ys, refs = line.split()
        x, y = float.fromhex(xs), float.fromhex(ys)
        v = exact(name, x, y)
        lower = refs.lower()
        ref_special = 'nan' in lower or 'inf' in lower
        count[name] = count.get(name, 0) + 1
        if mp.isfinite(v) and abs(v) >= mp.ldexp(1, 1024):
            # Beyond the double range (and often beyond quad's): the reference must be +-inf or huge.
            if not ('inf' in lower or abs(mp.mpf(refs)) >= mp.ldexp(1, 1024)):
                failures += 1
                print(f'FAILED: {name}({xs}, {ys}): reference {refs}, exact {mp.nstr(v, 20)} overflows a double')
            continue
        if ref_special or not mp.isfinite(v):
            same = (mp.isnan(v) and 'nan' in lower) or (mp.isinf(v) and 'inf' in lower and (v > 0) == ('-' not in lower))
            if not same:
                failures += 1
                print(f'FAILED: {name}({xs}, {ys}): reference {refs}, exact {mp.nstr(v, 20)}')
            continue
        err = abs(mp.mpf(refs) - v) / ulp_of_double_at(v)
        if name not in worst or err > worst[name][0]:
            worst[name] = (err, xs, ys)
    print(f'libquadmath reference against mpmath ({mp.mp.dps} digits), error in ulp of a double:')
    for name in count:
        err, xs, ys = worst.get(name, (mp.mpf(0), '-', '-'))
        print(f'  {name:8} {count[name]:8d} points  max {mp.nstr(err, 3):>10} ulp  at x = {xs}, y = {ys}')
        if err > BOUND_ULP:
            failures += 1
            print(f'FAILED: {name}: the reference is off by {mp.nstr(err, 3)} ulp (bound {BOUND_ULP})')
    print(f'{sum(count.values())} points in {time.time() - start:.1f} s')
    if not count:
        print('FAILED: no input (pipe `math_accuracy --dump N` into this script)')
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
