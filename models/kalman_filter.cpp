// The exact Kalman filter and RTS smoother. See kalman_filter.hpp.
#include "models/kalman_filter.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/model/densities.hpp"

namespace rsmc::models {

namespace {

// A small dense row-major matrix.
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Mat() = default;
  Mat(int r, int c) : rows(r), cols(c), v(static_cast<std::size_t>(r) * c, 0.0) {}
  double& operator()(int i, int j) { return v[static_cast<std::size_t>(i) * cols + j]; }
  double operator()(int i, int j) const { return v[static_cast<std::size_t>(i) * cols + j]; }
};

Mat from_vector(const std::vector<double>& v, int r, int c) {
  Mat a(r, c);
  a.v = v;
  return a;
}

Mat multiply(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k) {
      const double aik = a(i, k);
      if (aik == 0.0) continue;
      for (int j = 0; j < b.cols; ++j) c(i, j) += aik * b(k, j);
    }
  return c;
}

// a * b'
Mat multiply_bt(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.rows; ++j) {
      double s = 0.0;
      for (int k = 0; k < a.cols; ++k) s += a(i, k) * b(j, k);
      c(i, j) = s;
    }
  return c;
}

void symmetrise(Mat& a) {
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < i; ++j) {
      const double s = 0.5 * (a(i, j) + a(j, i));
      a(i, j) = s;
      a(j, i) = s;
    }
}

// Lower Cholesky factor; false if a pivot is not positive.
bool cholesky(const Mat& a, Mat& l) {
  const int n = a.rows;
  l = Mat(n, n);
  for (int j = 0; j < n; ++j) {
    double pivot = a(j, j);
    for (int k = 0; k < j; ++k) pivot -= l(j, k) * l(j, k);
    if (!(pivot > 0.0)) return false;
    const double ljj = std::sqrt(pivot);
    l(j, j) = ljj;
    for (int i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (int k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / ljj;
    }
  }
  return true;
}

// Solves L z = b in place (L lower triangular).
void forward(const Mat& l, std::vector<double>& b) {
  for (int i = 0; i < l.rows; ++i) {
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= l(i, k) * b[k];
    b[i] = s / l(i, i);
  }
}

// Solves L' z = b in place.
void backward(const Mat& l, std::vector<double>& b) {
  for (int i = l.rows - 1; i >= 0; --i) {
    double s = b[i];
    for (int k = i + 1; k < l.rows; ++k) s -= l(k, i) * b[k];
    b[i] = s / l(i, i);
  }
}

}  // namespace

KalmanResult kalman_filter(const LinearGaussianParams& params, const Observations& obs) {
  params.validate();
  const int d = params.d;
  const int m = params.m;
  if (obs.dim != m) {
    std::ostringstream msg;
    msg << "kalman_filter: the observations have dimension " << obs.dim
        << " but the model's observation dimension m is " << m << "; expected them to match";
    throw Error(msg.str());
  }
  if (obs.steps < 0 || obs.values.size() != static_cast<std::size_t>(obs.steps) * static_cast<std::size_t>(m)) {
    std::ostringstream msg;
    msg << "kalman_filter: the observations hold " << obs.values.size() << " values for " << obs.steps
        << " steps of dimension " << m << "; expected steps x dimension values";
    throw Error(msg.str());
  }

  const Mat A = from_vector(params.A, d, d);
  const Mat Q = from_vector(params.Q, d, d);
  const Mat C = from_vector(params.C, m, d);
  const Mat R = from_vector(params.R, m, m);
  std::vector<double> mean = params.m0;
  Mat P = from_vector(params.P0, d, d);

  KalmanResult result;
  result.steps = obs.steps;
  result.state_dim = d;
  result.log_likelihood_increment.assign(static_cast<std::size_t>(obs.steps), 0.0);
  result.mean.reserve(static_cast<std::size_t>(obs.steps) * d);
  result.covariance.reserve(static_cast<std::size_t>(obs.steps) * d * d);

  std::vector<int> seen;  // observed components of y_t
  for (int t = 1; t <= obs.steps; ++t) {
    // Predict: mean = A mean, P = A P A' + Q.
    {
      std::vector<double> next(static_cast<std::size_t>(d), 0.0);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) next[i] += A(i, j) * mean[j];
      mean = next;
      Mat ap = multiply(A, P);
      P = multiply_bt(ap, A);
      for (std::size_t k = 0; k < P.v.size(); ++k) P.v[k] += Q.v[k];
      symmetrise(P);
    }

    const double* y = obs.row(t);
    seen.clear();
    for (int j = 0; j < m; ++j) {
      if (std::isnan(y[j])) continue;
      if (!std::isfinite(y[j])) {
        std::ostringstream msg;
        msg << "kalman_filter: observation y_" << t << "[" << j << "] is " << y[j]
            << "; expected a finite number or NaN (missing)";
        throw Error(msg.str());
      }
      seen.push_back(j);
    }

    const int k = static_cast<int>(seen.size());
    if (k > 0) {
      // The observed part: C_o (k x d), R_o (k x k), innovation v = y_o - C_o mean.
      Mat Co(k, d), Ro(k, k);
      std::vector<double> v(static_cast<std::size_t>(k));
      for (int a = 0; a < k; ++a) {
        for (int j = 0; j < d; ++j) Co(a, j) = C(seen[a], j);
        for (int b = 0; b < k; ++b) Ro(a, b) = R(seen[a], seen[b]);
        double cm = 0.0;
        for (int j = 0; j < d; ++j) cm += Co(a, j) * mean[j];
        v[a] = y[seen[a]] - cm;
      }
      // S = C_o P C_o' + R_o = L L'.
      const Mat PCt = multiply_bt(P, Co);  // d x k (P symmetric)
      Mat S = multiply(Co, PCt);
      for (std::size_t e = 0; e < S.v.size(); ++e) S.v[e] += Ro.v[e];
      symmetrise(S);
      Mat L;
      if (!cholesky(S, L)) {
        std::ostringstream msg;
        msg << "kalman_filter: the innovation covariance at step " << t
            << " is not numerically positive definite; expected a well-conditioned model";
        throw Error(msg.str());
      }
      // log N(v; 0, S) = -k/2 log(2 pi) - sum log L_ii - |L^{-1} v|^2 / 2.
      std::vector<double> w = v;
      forward(L, w);
      double quad = 0.0;
      for (int a = 0; a < k; ++a) quad += w[a] * w[a];
      const double increment =
          mvnormal_log(quad, mvnormal_log_normaliser(k, half_log_det_from_cholesky(L.v.data(), k)));
      result.log_likelihood_increment[static_cast<std::size_t>(t - 1)] = increment;

      // Gain K = P C_o' S^{-1} (d x k): row i of K solves S K_i' = (P C_o')_i'.
      Mat K(d, k);
      std::vector<double> row(static_cast<std::size_t>(k));
      for (int i = 0; i < d; ++i) {
        for (int a = 0; a < k; ++a) row[a] = PCt(i, a);
        forward(L, row);
        backward(L, row);
        for (int a = 0; a < k; ++a) K(i, a) = row[a];
      }
      // mean += K v
      for (int i = 0; i < d; ++i) {
        double s = 0.0;
        for (int a = 0; a < k; ++a) s += K(i, a) * v[a];
        mean[i] += s;
      }
      // Joseph form: P = (I - K C_o) P (I - K C_o)' + K R_o K'.
      Mat IKC = multiply(K, Co);
      for (std::size_t e = 0; e < IKC.v.size(); ++e) IKC.v[e] = -IKC.v[e];
      for (int i = 0; i < d; ++i) IKC(i, i) += 1.0;
      const Mat left = multiply(IKC, P);
      P = multiply_bt(left, IKC);
      const Mat KR = multiply(K, Ro);
      const Mat KRK = multiply_bt(KR, K);
      for (std::size_t e = 0; e < P.v.size(); ++e) P.v[e] += KRK.v[e];
      symmetrise(P);
    }

    result.mean.insert(result.mean.end(), mean.begin(), mean.end());
    result.covariance.insert(result.covariance.end(), P.v.begin(), P.v.end());
  }

  // The total, summed in step order.
  double total = 0.0;
  for (double inc : result.log_likelihood_increment) total += inc;
  result.log_likelihood = total;
  return result;
}

KalmanResult rts_smoother(const LinearGaussianParams& params, const Observations& observations) {
  KalmanResult out = kalman_filter(params, observations);  // filtered moments, overwritten from T back
  const int d = params.d, T = out.steps;
  const std::size_t dd = static_cast<std::size_t>(d) * d;
  const Mat A = from_vector(params.A, d, d);
  const Mat Q = from_vector(params.Q, d, d);
  for (int t = T - 1; t >= 1; --t) {  // entry t - 1 is step t; entry t holds the smoothed step t + 1
    const std::vector<double> m_f(out.mean.begin() + (t - 1) * d, out.mean.begin() + t * d);
    const Mat P_f =
        from_vector(std::vector<double>(out.covariance.begin() + (t - 1) * dd, out.covariance.begin() + t * dd), d, d);
    Mat P_pred = multiply_bt(multiply(A, P_f), A);
    for (std::size_t k = 0; k < dd; ++k) P_pred.v[k] += Q.v[k];
    symmetrise(P_pred);
    Mat L;
    if (!cholesky(P_pred, L))
      throw Error("rts_smoother: the predicted covariance at step " + std::to_string(t + 1) +
                  " is not numerically positive definite");
    // G' = P_pred^{-1} A P_f (P_f and P_pred symmetric): column j of A P_f solved for column j of G'.
    const Mat AP = multiply(A, P_f);
    Mat G(d, d);
    std::vector<double> column(static_cast<std::size_t>(d));
    for (int j = 0; j < d; ++j) {
      for (int i = 0; i < d; ++i) column[i] = AP(i, j);
      forward(L, column);
      backward(L, column);
      for (int i = 0; i < d; ++i) G(j, i) = column[i];
    }
    std::vector<double> dm(static_cast<std::size_t>(d));
    for (int i = 0; i < d; ++i) {
      double am = 0.0;
      for (int j = 0; j < d; ++j) am += A(i, j) * m_f[j];
      dm[i] = out.mean[t * d + i] - am;
    }
    Mat dP =
        from_vector(std::vector<double>(out.covariance.begin() + t * dd, out.covariance.begin() + (t + 1) * dd), d, d);
    for (std::size_t k = 0; k < dd; ++k) dP.v[k] -= P_pred.v[k];
    Mat P_s = multiply_bt(multiply(G, dP), G);
    for (std::size_t k = 0; k < dd; ++k) P_s.v[k] += P_f.v[k];
    symmetrise(P_s);
    for (int i = 0; i < d; ++i) {
      double s = m_f[i];
      for (int j = 0; j < d; ++j) s += G(i, j) * dm[j];
      out.mean[(t - 1) * d + i] = s;
    }
    std::copy(P_s.v.begin(), P_s.v.end(), out.covariance.begin() + (t - 1) * dd);
  }
  return out;
}

}  // namespace rsmc::models
