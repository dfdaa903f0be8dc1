#!/usr/bin/env python3
"""Generates base/math/coefficients.hpp: the constants and polynomial coefficients of rsmc::math.

Every polynomial is a Chebyshev interpolant (mpmath.chebyfit, 60 digits) of the function it replaces,
on the interval the code feeds it, with coefficients rounded to double. The script then measures the
error of the polynomial with the *rounded* coefficients against the exact function on a dense grid
(mpmath, 60 digits) and prints it beside each fit, so the approximation error of every kernel is
on record. Splits of constants (ln 2, pi / 2, 2 pi) into pieces with trailing zero bits are exact
roundings of mpmath values.

Usage: scripts/math_coefficients.py [--write]   (--write replaces base/math/coefficients.hpp)
"""
import os
import sys

import mpmath as mp

mp.mp.dps = 60
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'base', 'math', 'coefficients.hpp')


def to_double(x):
    return float(mp.mpf(x))


def hexf(x):
    return float(x).hex()


def round_bits(x, bits):
    """x rounded to `bits` significant bits (as an mpf that is a double)."""
    x = mp.mpf(x)
    if x == 0:
        return mp.mpf(0)
    e = int(mp.floor(mp.log(abs(x), 2))) + 1
    scale = mp.mpf(2) ** (bits - e)
    return mp.nint(x * scale) / scale


def split(x, pieces_bits):
    """x = sum of pieces, piece i rounded to pieces_bits[i] bits; returns the list of doubles."""
    out, rest = [], mp.mpf(x)
    for b in pieces_bits:
        p = round_bits(rest, b)
        assert to_double(p) == p, 'piece is not a double'
        out.append(to_double(p))
        rest -= p
    return out, rest


def fit(f, lo, hi, n, exact_terms=0):
    """n Chebyshev-interpolant coefficients (ascending) of f on [lo, hi] rounded to double, and the
    max error of the rounded polynomial on a 4000-point grid. The first exact_terms coefficients are
    returned unrounded (the caller stores them as hi + lo) and the error is measured that way."""
    c = mp.chebyfit(f, [lo, hi], n)
    exact = list(reversed(c))
    coeffs = [to_double(v) for v in exact]
    used = [mp.mpf(v) for v in coeffs]
    for i in range(exact_terms):
        coeffs[i] = exact[i]
        used[i] = mp.mpf(to_double(exact[i])) + mp.mpf(to_double(exact[i] - mp.mpf(to_double(exact[i]))))
    grid = [lo + (hi - lo) * mp.mpf(i) / 3999 for i in range(4000)]
    err = max(abs(mp.polyval(list(reversed(used)), t) - f(t)) for t in grid)
    return coeffs, err


TINY = mp.mpf('1e-40')


def expm1_q(r):  # (e^r - 1 - r) / r^2
    return mp.mpf(1) / 2 if abs(r) < TINY else (mp.expm1(r) - r) / r ** 2


def log_u2(z):  # U(z) = (2 atanh(s)/s - 2) / z = 2/3 + 2z/5 + z^2 U2(z), z = s^2
    if z < TINY:
        return mp.mpf(2) / 7
    s = mp.sqrt(z)
    return ((2 * mp.atanh(s) / s - 2) / z - mp.mpf(2) / 3 - 2 * z / 5) / z ** 2


def sin_s(z):  # sin(t) = t + t z S(z), z = t^2
    if z < TINY:
        return -mp.mpf(1) / 6
    t = mp.sqrt(z)
    return (mp.sin(t) / t - 1) / z


def cos_c(z):  # cos(t) = 1 - z/2 + z^2 C(z)
    if z < TINY:
        return mp.mpf(1) / 24
    t = mp.sqrt(z)
    return (mp.cos(t) - 1 + z / 2) / z ** 2


def lgamma_over(zero, centre):  # u -> lgamma(zero + t) / t with t = centre + u
    def f(u):
        t = centre + u
        if abs(t) < TINY:
            return mp.diff(mp.loggamma, zero)
        return mp.loggamma(zero + t) / t
    return f


def stirling_r(w):  # x (lgamma(x) - (x - 1/2) log x + x - log(2 pi)/2), x = w^(-1/2)
    x = 1 / mp.sqrt(w)
    return x * (mp.loggamma(x) - (x - mp.mpf(1) / 2) * mp.log(x) + x - mp.log(2 * mp.pi) / 2)


def cpp_double(name, value, comment):
    return f'constexpr double {name} = {hexf(value)};  // {comment}\n'


def cpp_poly(name, coeffs, arg, comment):
    body = ',\n        '.join(hexf(c) for c in coeffs)
    return (f'// {comment}\n'
            f'RSMC_MATH_FUNCTION double {name}(double {arg}) {{\n'
            f'    return detail::horner({arg},\n        {body});\n}}\n\n')


def main():
    out = []
    report = []

    # ---- constants
    ln2 = mp.log(2)
    (ln2_hi, ln2_lo), rest = split(ln2, [42, 53])
    report.append(f'ln2 = hi(42 bits) + lo: remainder {mp.nstr(rest, 3)}')
    out.append(cpp_double('kLn2Hi', ln2_hi, 'ln 2 to 42 bits: k * kLn2Hi is exact for |k| < 2^11'))
    out.append(cpp_double('kLn2Lo', ln2_lo, 'ln 2 - kLn2Hi'))
    out.append(cpp_double('kInvLn2', to_double(1 / ln2), '1 / ln 2'))
    pio2 = mp.pi / 2
    pieces, rest = split(pio2, [27, 27, 27, 27, 53])
    report.append(f'pi/2 = 4 x 27 bits + 53 bits: remainder {mp.nstr(rest, 3)}')
    for i, p in enumerate(pieces):
        out.append(cpp_double(f'kPiOver2Part{i + 1}', p,
                              'pi / 2, next 27 bits' if i < 4 else 'pi / 2, the rest to 53 bits'))
    out.append(cpp_double('kTwoOverPi', to_double(2 / mp.pi), '2 / pi'))
    (tp_hi, tp_lo), rest = split(2 * mp.pi, [53, 53])
    out.append(cpp_double('kTwoPiHi', tp_hi, '2 pi rounded'))
    out.append(cpp_double('kTwoPiLo', tp_lo, '2 pi - kTwoPiHi'))
    out.append(cpp_double('kSqrt2', to_double(mp.sqrt(2)), 'sqrt(2) rounded (the fits allow for the rounding)'))
    (c23_hi, c23_lo), _ = split(mp.mpf(2) / 3, [53, 53])
    (c25_hi, c25_lo), _ = split(mp.mpf(2) / 5, [53, 53])
    out.append(cpp_double('kTwoThirdsHi', c23_hi, '2/3 = hi + lo'))
    out.append(cpp_double('kTwoThirdsLo', c23_lo, '2/3 - kTwoThirdsHi'))
    out.append(cpp_double('kTwoFifthsHi', c25_hi, '2/5 = hi + lo'))
    out.append(cpp_double('kTwoFifthsLo', c25_lo, '2/5 - kTwoFifthsHi'))
    out.append(cpp_double('kHalfLog2PiMinusHalf', to_double(mp.log(2 * mp.pi) / 2 - mp.mpf(1) / 2),
                          'log(2 pi) / 2 - 1/2'))
    out.append('\n')

    # ---- polynomials
    h = ln2 / 2 * mp.mpf('1.0001')
    c, e = fit(expm1_q, -h, h, 11)
    report.append(f'expm1_q on [-ln2/2, ln2/2]: 11 terms, abs error {mp.nstr(e, 3)}')
    out.append(cpp_poly('expm1_q', c, 'r', f'(e^r - 1 - r) / r^2 on |r| <= ln 2 / 2; abs error {mp.nstr(e, 2)}'))

    zmax = ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2 * mp.mpf('1.0001')
    c, e = fit(log_u2, 0, zmax, 8)
    report.append(f'log_u2 on [0, {mp.nstr(zmax, 4)}]: 8 terms, abs error {mp.nstr(e, 3)}')
    out.append(cpp_poly('log_u2', c, 'z',
                        f'U2(z), 2 atanh(s) = 2s + s z (2/3 + 2z/5 + z^2 U2(z)), z = s^2 <= (3 - 2 sqrt 2)^2; '
                        f'abs error {mp.nstr(e, 2)}'))

    tmax = (mp.pi / 4) ** 2 * mp.mpf('1.001')
    c, e = fit(sin_s, 0, tmax, 7)
    report.append(f'sin_s on [0, (pi/4)^2]: 7 terms, abs error {mp.nstr(e, 3)}')
    out.append(cpp_poly('sin_s', c, 'z', f'(sin t / t - 1) / z, z = t^2 <= (pi/4)^2; abs error {mp.nstr(e, 2)}'))
    c, e = fit(cos_c, 0, tmax, 7)
    report.append(f'cos_c on [0, (pi/4)^2]: 7 terms, abs error {mp.nstr(e, 3)}')
    out.append(cpp_poly('cos_c', c, 'z', f'(cos t - 1 + z/2) / z^2, z = t^2 <= (pi/4)^2; abs error {mp.nstr(e, 2)}'))

    wmax = mp.mpf(1) / 64
    c, e = fit(stirling_r, mp.mpf('1e-30'), wmax, 7)
    report.append(f'stirling_r on [0, 1/64]: 7 terms, abs error {mp.nstr(e, 3)}')
    out.append(cpp_poly('stirling_r', c, 'w',
                        f'x (lgamma(x) - (x - 1/2) log x + x - log(2 pi)/2), w = 1/x^2 <= 1/64; abs error {mp.nstr(e, 2)}'))

    # lgamma pieces: lgamma(zero + t) / t as a polynomial in u = t - centre, |u| <= half width.
    pieces = [('B1', 1, mp.mpf('-0.25'), mp.mpf('0.25'), 'x in [0.5, 1): t = x - 1'),
              ('B2', 1, mp.mpf('0.25'), mp.mpf('0.25'), 'x in [1, 1.5): t = x - 1 (and lgamma(1 + x), x < 0.5)'),
              ('C', 2, mp.mpf('-0.25'), mp.mpf('0.25'), 'x in [1.5, 2): t = x - 2'),
              ('D', 2, mp.mpf('0.5'), mp.mpf('0.5'), 'z in [2, 3): t = z - 2')]
    terms = 22
    sets = []
    for name, zero, centre, hw, what in pieces:
        c, e = fit(lgamma_over(zero, centre), -hw * mp.mpf('1.0001'), hw * mp.mpf('1.0001'), terms, exact_terms=2)
        report.append(f'lgamma piece {name} ({what}): {terms} terms, abs error {mp.nstr(e, 3)}')
        sets.append((name, c, e, what, centre))
    out.append('// lgamma(zero + t) / t = P(u), u = t - centre, on four pieces (the piece index selects the\n'
               '// coefficients lane by lane, so a vectorised loop evaluates one polynomial per element):\n')
    for i, (name, c, e, what, centre) in enumerate(sets):
        out.append(f'//   piece {i} ({name}): {what}, centre {mp.nstr(centre, 3)}, abs error {mp.nstr(e, 2)}\n')
    out.append(f'constexpr int kLgammaTerms = {terms};\n')
    # The first two coefficients are carried as hi + lo and the first two Horner steps run in
    # double-double: near the minimum of lgamma (x = 1.46) t P(u) lands two binades below P, so an
    # error of 1/2 ulp in P would become about 2 ulp of the result.
    def pick(values):
        return 'detail::pick4(piece, ' + ', '.join(hexf(v) for v in values) + ')'
    def hi_lo(k):
        his = [to_double(st[1][k]) for st in sets]
        los = [to_double(st[1][k] - mp.mpf(to_double(st[1][k]))) for st in sets]
        return pick(his), pick(los)
    c0 = hi_lo(0)
    c1 = hi_lo(1)
    rows = [pick([st[1][k] for st in sets]) for k in range(2, terms)]
    out.append('RSMC_MATH_FUNCTION detail::DoubleDouble lgamma_piece(double piece, double u) {\n'
               f'    const detail::DoubleDouble c0{{{c0[0]},\n                                  {c0[1]}}};\n'
               f'    const detail::DoubleDouble c1{{{c1[0]},\n                                  {c1[1]}}};\n'
               '    const double rest = detail::horner(u,\n        ' + ',\n        '.join(rows) + ');\n'
               '    return detail::horner2_dd(u, c0, c1, rest);\n}\n\n')
    out.append('RSMC_MATH_FUNCTION double lgamma_piece_centre(double piece) {\n'
               '    return detail::pick4(piece, ' + ', '.join(hexf(to_double(s[4])) for s in sets) + ');\n}\n')

    header = ('// Generated by scripts/math_coefficients.py (mpmath, 60 digits); do not edit by hand.\n'
              '// Constants and polynomial coefficients of rsmc::math. Each polynomial comment gives the\n'
              '// maximum error of the polynomial with these rounded coefficients against the exact function.\n'
              '#pragma once\n\n#include "base/math/arithmetic.hpp"\n\n'
              'namespace rsmc::math::coefficients {\n\n')
    text = header + ''.join(out) + '\n}  // namespace rsmc::math::coefficients\n'
    for line in report:
        print(line, file=sys.stderr)
    if '--write' in sys.argv:
        with open(OUT, 'w') as fh:
            fh.write(text)
        print(f'wrote {os.path.normpath(OUT)}', file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
