// Exact binomial variates and unbiased 128-bit bounded integers from an rsmc random stream (any type
// with uniform(), next_u64() and integer(n): rng::Stream, or the models' rng::ModelStream).
//
// Why: multinomial resampling with the reproducibility contract (docs/reproducibility.md) generates the
// sorted uniforms per value range by binomial splitting on a fixed, p-independent tree: the number of
// N uniforms that fall in the left part of a node is Binomial(n, W_left / W_node). Each node draws
// from its own counter-based Stream, so the split is a pure function of (seed, step, node), the same
// for any number of ranks. The node counts can be large (n = N up to 10^10 and beyond), so the
// sampler must run in O(1) expected time for any n, with no normal approximation. uniform_below()
// draws a position in [0, W) for fixed-point weight totals W that need more than 64 bits.
//
// binomial(s, n, p): Binomial(n, p) for 0 <= p <= 1 and n <= 2^63.
// - n == 0, p <= 0 (and NaN) give 0; p >= 1 gives n; none of these consumes a draw.
// - p > 1/2 uses the symmetry X(n, p) = n - X(n, 1 - p) (1 - p is exact there), so the methods
//   below always see p <= 1/2.
// - n p < 10: inversion by sequential search from 0 (algorithm BINV of V. Kachitvichyanukul and
//   B. W. Schmeiser, "Binomial random variate generation", Comm. ACM 31 (1988) 216-222; see also
//   L. Devroye, "Non-Uniform Random Variate Generation", 1986, ch. X). One uniform u; subtract
//   f(0), f(1), ... from u until u <= f(x), with f(0) = exp(n log1p(-p)) and the recursion
//   f(x) = f(x - 1) (n - x + 1) / x * p / (1 - p). Expected n p + 1 steps. If rounding leaves u
//   above the whole computed mass (the pmf underflows to 0, or x reaches n), the uniform is
//   discarded and a new one drawn; that event has probability of order 1e-16.
// - n p >= 10: BTRD, transformed rejection with decomposition (W. Hoermann, "The generation of
//   binomial random variates", J. Statist. Comput. Simul. 46 (1993) 101-110), as published: an
//   immediate acceptance region (probability 0.86 v_r, about 0.8 for large n p; one uniform),
//   otherwise a transformed-rejection candidate k accepted against the pmf ratio f(k)/f(m) to the
//   mode m, evaluated by the recursion when |k - m| <= 15, else through a squeeze and, rarely,
//   Stirling's formula with the correction terms fc of log(k!). Expected cost O(1) for every n and
//   p: about 1.4 uniforms per variate for large n p (2.5 at n p = 10), independent of n; the setup
//   is a handful of divisions and one sqrt. Two numerical refinements keep it accurate to double
//   precision for huge n: the mode m = floor((n + 1) p) and the offset c - m of the hat's centre
//   c = n p + 1/2 are computed in exact 128-bit integer arithmetic, so a candidate
//   k = m + floor(y + (c - m)) lands on the right integer even where doubles cannot represent every
//   integer near n p (n p > 2^53); and the final log-acceptance test uses a regrouping whose rounding
//   error is O(|k - m| eps) instead of the published form's O(n eps) (log_pmf_ratio()).
// The number of draws consumed varies (one uniform for most variates) but is a deterministic
// function of the stream's state: the result is a pure function of (seed, purpose, step, id) and the
// stream position. The arithmetic is double with sqrt and rsmc::math's exp, log and log1p (never
// libm's, whose last bits differ between machines and on a CUDA device), so the variates are
// bitwise the same on every platform, host and device.
//
// uniform_below(s, bound): uniform on [0, bound) for 1 <= bound <= 2^128 - 1, unbiased.
// - bound < 2^64: Stream::integer(bound) (Lemire's method, one u64 in almost all cases).
// - bound == 2^64: one next_u64().
// - otherwise: rejection with a bit mask: x = next_u64() (low word) | (next_u64() & mask) << 64, where
//   mask covers the bits of bound - 1 above 64, until x < bound; every x below the mask's range is
//   equally likely, so the accepted x is uniform. Each try succeeds with probability above 1/2 (2
//   tries expected in the worst case, bound just above a power of two; about 1 just below one).
//   bound == 0 is a precondition violation and returns 0 without consuming a draw.
//
// RSMC_HOST_DEVICE: host, Kokkos kernels and raw CUDA kernels. No Kokkos, no MPI.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/uint128.hpp"
#include "base/math/math.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::rng {

namespace binomial_detail {

// fc(k) = log(k!) - [log(sqrt(2 pi)) + (k + 1/2) log(k + 1) - (k + 1)], the correction of Stirling's
// formula. Tabulated for k < 16 (computed to 20 digits with mpmath), else the asymptotic series
// 1/(12 z) - 1/(360 z^3) + 1/(1260 z^5), z = k + 1, whose truncation error is < 2.3e-12 for k >= 16.
RSMC_HOST_DEVICE double stirling_correction(std::uint64_t k) {
  switch (k) {
    case 0:
      return 0.08106146679532725822;
    case 1:
      return 0.04134069595540929409;
    case 2:
      return 0.02767792568499833915;
    case 3:
      return 0.02079067210376509311;
    case 4:
      return 0.01664469118982119216;
    case 5:
      return 0.01387612882307074800;
    case 6:
      return 0.01189670994589177010;
    case 7:
      return 0.01041126526197209650;
    case 8:
      return 0.00925546218271273292;
    case 9:
      return 0.00833056343336287126;
    case 10:
      return 0.00757367548795184080;
    case 11:
      return 0.00694284010720952987;
    case 12:
      return 0.00640899418800420707;
    case 13:
      return 0.00595137011275884774;
    case 14:
      return 0.00555473355196280137;
    case 15:
      return 0.00520765591960964044;
    default:
      break;
  }
  const double z = static_cast<double>(k) + 1.0;
  const double z2 = z * z;
  return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * z2)) / z2) / z;
}

// Inversion for n p < 10, p <= 1/2 (see the header comment).
template <class Rng>
RSMC_HOST_DEVICE std::uint64_t inversion(Rng& s, std::uint64_t n, double p) {
  const double q = 1.0 - p;
  const double odds = p / q;
  const double f0 = math::exp(static_cast<double>(n) * math::log1p(-p));  // (1 - p)^n >= e^-14 here
  for (;;) {
    double u = s.uniform();
    double f = f0;
    std::uint64_t x = 0;
    for (;;) {
      if (u <= f) return x;
      u -= f;
      if (x == n) break;  // rounding left u above the total mass: draw again
      ++x;
      f *= static_cast<double>(n - x + 1) / static_cast<double>(x) * odds;
      if (!(f > 0.0)) break;  // the pmf underflowed in the far tail: draw again
    }
  }
}

// m = floor((n + 1) p) and frac = (n + 1) p - m, exactly (frac rounded once), for 0 < p <= 1/2 and
// n < 2^64 - 1. A normal p is M 2^-sh with the integer significand M < 2^53, so (n + 1) p =
// (n + 1) M 2^-sh, where (n + 1) M < 2^117 is an exact 128-bit product.
RSMC_HOST_DEVICE void mode_and_fraction(std::uint64_t n, double p, std::uint64_t* m, double* frac) {
  const std::uint64_t bits = exact::u128_detail::double_bits(p);
  const int biased_exp = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased_exp == 0) {  // subnormal p < 2^-1022: (n + 1) p < 2^-958
    *m = 0;
    *frac = static_cast<double>(n) * p + p;
    return;
  }
  const std::uint64_t mant = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  const int sh = 1075 - biased_exp;  // p = mant 2^-sh; sh >= 53 for p <= 1/2
  const exact::u128 prod = static_cast<exact::u128>(n + 1) * mant;
  if (sh >= 128) {  // p < 2^-75: (n + 1) p < 2^-11
    *m = 0;
    *frac = ldexp(exact::to_double(prod), -sh);
    return;
  }
  *m = static_cast<std::uint64_t>(prod >> sh);
  const exact::u128 rest = prod & ((static_cast<exact::u128>(1) << sh) - 1);
  *frac = exact::to_double(rest) * exact::u128_detail::pow2(-sh);  // exact scaling: 2^-127 is normal
}

// The BTRD candidate k = floor((2 a / us + b) u + c), computed as m + floor((2 a / us + b) u + (c - m))
// so that it is exact relative to the exact mode m. Returns false if k falls outside [0, n].
RSMC_HOST_DEVICE bool candidate(std::uint64_t n, std::uint64_t m, double a, double b, double c_minus_m, double u,
                                double us, std::uint64_t* k) {
  const double t = floor((2.0 * a / us + b) * u + c_minus_m);
  if (!(t > -9.0e18 && t < 9.0e18)) return false;  // out of any range (us -> 0); also NaN
  const auto off = static_cast<std::int64_t>(t);
  if (off < 0) {
    const auto down = static_cast<std::uint64_t>(-off);
    if (down > m) return false;
    *k = m - down;
  } else {
    const auto up = static_cast<std::uint64_t>(off);
    if (up > n - m) return false;
    *k = m + up;
  }
  return true;
}

// log(f(k) / f(m)) for the Binomial(n, p) pmf f, with r = p / (1 - p), by Stirling's formula with
// the corrections fc. With nm = n - m + 1, nk = n - k + 1 and d = k - m,
//   log f(k)/f(m) = (m + 1/2) log((m + 1)/(k + 1)) + (nm - 1/2) log(nm / nk) + d log(r nk / (k + 1))
//                   + fc(m) + fc(n - m) - fc(k) - fc(n - k),
// an exact regrouping of Hoermann's h + (n + 1) log(nm/nk) + (k + 1/2) log(nk r/(k + 1)) - fc(k) -
// fc(n - k), h = (m + 1/2) log((m + 1)/(r nm)) + fc(m) + fc(n - m). In the paper's form the terms
// are of size n and k and their rounding errors O(n eps); here the ratios in the first two logs are
// 1 - d/(k + 1) and 1 + d/nk with d exact, so log1p keeps every term's error at O(|d| eps). Measured
// against a long-double sum of log ratios: error ~1e-12 (the fc series) for n up to 2^63, where the
// published form is off by ~1e3. Needs m, k <= n.
RSMC_HOST_DEVICE double log_pmf_ratio(std::uint64_t n, double r, std::uint64_t m, std::uint64_t k) {
  const double d = k >= m ? static_cast<double>(k - m) : -static_cast<double>(m - k);
  const double nm = static_cast<double>(n - m) + 1.0;
  const double nk = static_cast<double>(n - k) + 1.0;
  const double kp1 = static_cast<double>(k) + 1.0;
  return (static_cast<double>(m) + 0.5) * math::log1p(-d / kp1) + (nm - 0.5) * math::log1p(d / nk) +
         d * math::log(r * nk / kp1) + stirling_correction(m) + stirling_correction(n - m) - stirling_correction(k) -
         stirling_correction(n - k);
}

// BTRD (Hoermann 1993) for n p >= 10, p <= 1/2. The step numbers follow the paper.
template <class Rng>
RSMC_HOST_DEVICE std::uint64_t btrd(Rng& s, std::uint64_t n, double p) {
  const double q = 1.0 - p;
  const double nd = static_cast<double>(n);
  const double r = p / q;
  const double npq = nd * p * q;
  const double sqrt_npq = sqrt(npq);
  const double b = 1.15 + 2.53 * sqrt_npq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double alpha = (2.83 + 5.1 / b) * sqrt_npq;
  const double v_r = 0.92 - 4.2 / b;
  const double u_rv_r = 0.86 * v_r;
  std::uint64_t m = 0;
  double frac = 0.0;
  mode_and_fraction(n, p, &m, &frac);
  // c - m, where c = n p + 1/2 = (n + 1) p - p + 1/2 is the centre of the hat.
  const double c_minus_m = frac + (0.5 - p);

  for (;;) {
    // 1. Immediate acceptance in the triangle region.
    std::uint64_t k = 0;
    double v = s.uniform();
    double u;
    if (v <= u_rv_r) {
      u = v / v_r - 0.43;
      if (candidate(n, m, a, b, c_minus_m, u, 0.5 - fabs(u), &k)) return k;
      continue;  // cannot happen for n p >= 10; kept so that k is always in [0, n]
    }
    // 2. Generate a point under the hat.
    if (v >= v_r) {
      u = s.uniform() - 0.5;
    } else {
      u = v / v_r - 0.93;
      u = (u < 0.0 ? -0.5 : 0.5) - u;
      v = s.uniform() * v_r;
    }
    // 3.0 The candidate and the scaled acceptance variate.
    const double us = 0.5 - fabs(u);
    if (!candidate(n, m, a, b, c_minus_m, u, us, &k)) continue;
    v = v * alpha / (a / (us * us) + b);
    const std::uint64_t km = k > m ? k - m : m - k;
    // 3.1 Recursive evaluation of f(k) / f(m), f(i) / f(i - 1) = (n - i + 1) / i * p / q.
    if (km <= 15) {
      double f = 1.0;
      if (m < k) {
        for (std::uint64_t i = m + 1; i <= k; ++i) f *= static_cast<double>(n - i + 1) / static_cast<double>(i) * r;
      } else if (m > k) {
        for (std::uint64_t i = k + 1; i <= m; ++i) v *= static_cast<double>(n - i + 1) / static_cast<double>(i) * r;
      }
      if (v <= f) return k;
      continue;
    }
    // 3.2 Squeeze: log f(k)/f(m) lies within rho of t.
    v = math::log(v);
    const double kmd = static_cast<double>(km);
    const double rho = (kmd / npq) * (((kmd / 3.0 + 0.625) * kmd + 1.0 / 6.0) / npq + 0.5);
    const double t = -kmd * kmd / (2.0 * npq);
    if (v < t - rho) return k;
    if (v > t + rho) continue;
    // 3.3 Final acceptance: v <= log f(k) / f(m).
    const double log_ratio = log_pmf_ratio(n, r, m, k);
    if (v <= log_ratio) return k;
  }
}

// Binomial(n, p) for n >= 1 and 0 < p <= 1/2.
template <class Rng>
RSMC_HOST_DEVICE std::uint64_t lower_half(Rng& s, std::uint64_t n, double p) {
  if (static_cast<double>(n) * p < 10.0) return inversion(s, n, p);
  return btrd(s, n, p);
}

}  // namespace binomial_detail

template <class Rng>
RSMC_HOST_DEVICE std::uint64_t binomial(Rng& s, std::uint64_t n, double p) {
  if (n == 0 || !(p > 0.0)) return 0;
  if (p >= 1.0) return n;
  if (p > 0.5) {
    const double pc = 1.0 - p;  // exact for p in [1/2, 1]
    return n - binomial_detail::lower_half(s, n, pc);
  }
  return binomial_detail::lower_half(s, n, p);
}

template <class Rng>
RSMC_HOST_DEVICE exact::u128 uniform_below(Rng& s, exact::u128 bound) {
  if (bound == 0) return 0;
  if (exact::u128_detail::hi64(bound) == 0) return s.integer(exact::u128_detail::lo64(bound));
  const std::uint64_t top_hi = exact::u128_detail::hi64(bound - 1);
  if (top_hi == 0) return s.next_u64();  // bound == 2^64
  const std::uint64_t mask = ~static_cast<std::uint64_t>(0) >> exact::u128_detail::clz64(top_hi);
  for (;;) {
    const std::uint64_t lo = s.next_u64();
    const std::uint64_t hi = s.next_u64() & mask;
    const exact::u128 x = (static_cast<exact::u128>(hi) << 64) | lo;
    if (x < bound) return x;
  }
}

}  // namespace rsmc::rng
