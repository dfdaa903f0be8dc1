// The exact Kalman filter and Rauch-Tung-Striebel smoother for the linear Gaussian model
// (models/linear_gaussian.hpp). Host only.
//
// It is the reference the particle filter is checked against: the exact log-likelihood
// log p(y_1..T), its per-step increments log p(y_t | y_1..t-1), and the filtered means and
// covariances of x_t given y_1..t.
//
// Time convention (the same as the model's): x_0 ~ N(m0, P0) is the prior BEFORE the first
// transition; step t = 1..T first predicts with A and Q, then updates with y_t.
//
// Numerics: plain double. The innovation covariance S = C P C' + R is Cholesky-factorised and used
// for every solve (no explicit inverse); the covariance update is the Joseph form
// P = (I - K C) P (I - K C)' + K R K', symmetrised after every step, so P stays symmetric positive
// semi-definite even when the gain is computed inexactly.
//
// Missing data: a row whose components are all NaN (Observations::missing) is "no observation": the
// step predicts only, its increment is 0 and the reported moments are the predicted ones. A row with
// only SOME NaN components is handled exactly as well: the update uses the observed components only
// (the rows of C and the rows/columns of R that belong to them). Note that the particle filter engine
// skips only whole missing rows; the model's log_likelihood expects complete rows.
#pragma once

#include <vector>

#include "framework/model/observations.hpp"
#include "models/linear_gaussian.hpp"

namespace rsmc::models {

struct KalmanResult {
  int steps = 0;                                 // T
  int state_dim = 0;                             // d
  double log_likelihood = 0.0;                   // log p(y_1..T), the sum of the increments
  std::vector<double> log_likelihood_increment;  // log p(y_t | y_1..t-1), T (0 where y_t is missing)
  std::vector<double> mean;                      // E[x_t | y_1..t], T x d row-major
  std::vector<double> covariance;                // Cov[x_t | y_1..t], T x d x d row-major
};

// Throws rsmc::Error if the parameters are invalid (LinearGaussianParams::validate), if the
// observations' dimension differs from m (the message names both), if their value count is not
// steps x dim, if a value is infinite, or if an innovation covariance is numerically not positive
// definite.
KalmanResult kalman_filter(const LinearGaussianParams& params, const Observations& observations);

// The exact Rauch-Tung-Striebel smoother: E[x_t | y_1..T] and Cov[x_t | y_1..T] for t = 1..T, from the
// filter's moments (the reference of the genealogy smoother, framework/smooth/). Backwards from T:
//   P_{t+1|t} = A P_{t|t} A' + Q,   G_t = P_{t|t} A' P_{t+1|t}^{-1}   (Cholesky solves, no inverse)
//   m_{t|T} = m_{t|t} + G_t (m_{t+1|T} - A m_{t|t}),   P_{t|T} = P_{t|t} + G_t (P_{t+1|T} - P_{t+1|t}) G_t'
// Same layout as KalmanResult (mean T x d, covariance T x d x d); log-likelihood fields as the filter's.
KalmanResult rts_smoother(const LinearGaussianParams& params, const Observations& observations);

}  // namespace rsmc::models
