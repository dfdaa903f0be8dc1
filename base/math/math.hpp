// rsmc::math: portable elementary functions that return the same bits on the host at any vector
// width and on CUDA devices. Every result of rsmc that goes through a transcendental function
// (random normals and exponentials, fixed-point weights, count samplers, model densities) must use
// these rather than std:: or ::exp/log/..., whose last bits differ between libm versions, CPU code
// paths (glibc picks an FMA or non-FMA variant at run time) and the CUDA device library.
//
//   exp, expm1, log, log1p        base/math/exp_log.hpp
//   sincos_2pi, sin_2pi, cos_2pi  base/math/trig.hpp   (sin and cos of 2 pi u, for Box-Muller)
//   sin, cos, sincos              base/math/trig.hpp   (radians, |x| <= 2^26)
//   lgamma (x >= 0), pow (x >= 0) base/math/lgamma_pow.hpp
//   double-double arithmetic      base/math/double_double.hpp (two_sum, two_prod, dd_add, ...)
//
// Domains, special values and measured accuracy (at most 2 ulp, measured on 10^7 arguments per
// function against libquadmath, itself checked against mpmath): docs/math.md.
#pragma once

#include "base/math/double_double.hpp"
#include "base/math/exp_log.hpp"
#include "base/math/lgamma_pow.hpp"
#include "base/math/trig.hpp"
