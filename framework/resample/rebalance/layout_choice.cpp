#include "framework/resample/rebalance/layout_choice.hpp"

#include <algorithm>
#include <string>

#include "base/core/error.hpp"
#include "framework/resample/rebalance/integer_pwl.hpp"

namespace rsmc {

namespace {

__extension__ using i128 = __int128;
using Positions = std::vector<std::int64_t>;

// phi_j(b): the particles a boundary at b moves when the held boundaries are q[j-1] <= q[j] <= q[j+1].
std::int64_t boundary_cost(const Positions& q, std::size_t j, std::int64_t b) {
  const std::int64_t clamped = std::min(std::max(b, q[j - 1]), q[j + 1]);
  return clamped >= q[j] ? clamped - q[j] : q[j] - clamped;
}

// The band as positions: prefix sums, and the range [lo_j, hi_j] of boundary j over all layouts in
// the band (from the left: j ranks hold between sum lower and sum upper; from the right likewise).
struct Box {
  Positions lo, hi;
};
Box boundary_ranges(const LoadBand& band) {
  const std::size_t p = static_cast<std::size_t>(band.ranks());
  const i128 n = band.size();
  std::vector<i128> lower_sum(p + 1, 0), upper_sum(p + 1, 0);
  for (std::size_t k = 0; k < p; ++k) {
    lower_sum[k + 1] = lower_sum[k] + band.lowers()[k];
    upper_sum[k + 1] = upper_sum[k] + band.uppers()[k];
  }
  Box box{Positions(p + 1), Positions(p + 1)};
  for (std::size_t j = 0; j <= p; ++j) {
    box.lo[j] = static_cast<std::int64_t>(std::max(lower_sum[j], n - (upper_sum[p] - upper_sum[j])));
    box.hi[j] = static_cast<std::int64_t>(std::min(upper_sum[j], n - (lower_sum[p] - lower_sum[j])));
  }
  return box;
}

// The least layout (as boundaries) in the band with b >= r (up), or the greatest with b <= r:
// a forward pass for the constraints to the left, a backward pass for those to the right.
Positions least_above(const Positions& r, const LoadBand& band) {
  Positions b = r;
  const std::size_t p = b.size() - 1;
  for (std::size_t j = 1; j <= p; ++j)
    b[j] = std::max(b[j], b[j - 1] + static_cast<std::int64_t>(band.lowers()[j - 1]));
  for (std::size_t j = p; j-- > 0;) b[j] = std::max(b[j], b[j + 1] - static_cast<std::int64_t>(band.uppers()[j]));
  return b;
}
Positions greatest_below(const Positions& r, const LoadBand& band) {
  Positions b = r;
  const std::size_t p = b.size() - 1;
  for (std::size_t j = 1; j <= p; ++j)
    b[j] = std::min(b[j], b[j - 1] + static_cast<std::int64_t>(band.uppers()[j - 1]));
  for (std::size_t j = p; j-- > 0;) b[j] = std::min(b[j], b[j + 1] - static_cast<std::int64_t>(band.lowers()[j]));
  return b;
}

Layout as_layout(const Positions& b) { return Layout(std::vector<std::uint64_t>(b.begin(), b.end())); }

// The boundaries s..e-1 (m_j < M_j; s-1 and e decided) minimising sum phi_j, written into b.
void solve_run(const LoadBand& band, const Positions& q, const Positions& m, const Positions& big,
               const Positions& target, std::size_t s, std::size_t e, Positions& b) {
  // value[j - s] = F_j: the least cost of boundaries s..j given b_j, on m_j..M_j.
  std::vector<IntegerPwl> value;
  value.reserve(e - s);
  IntegerPwl f(m[s - 1], m[s - 1], 0);
  for (std::size_t k = s - 1; k < e; ++k) {  // rank k lies between boundaries k and k + 1
    const auto lower = static_cast<std::int64_t>(band.lowers()[k]), upper = static_cast<std::int64_t>(band.uppers()[k]);
    f = f.eroded(upper - lower).shifted(lower).restricted(m[k + 1], big[k + 1]);
    if (k + 1 < e) {
      f = f.plus_boundary_cost(q[k], q[k + 1], q[k + 2]);
      value.push_back(f);
    }
  }
  std::int64_t y = m[e];
  for (std::size_t j = e; j-- > s;) {
    const auto lower = static_cast<std::int64_t>(band.lowers()[j]), upper = static_cast<std::int64_t>(band.uppers()[j]);
    std::int64_t at = 0;
    value[j - s].minimum(std::max(m[j], y - upper), std::min(big[j], y - lower), target[j], at);
    b[j] = at;
    y = at;
  }
}

}  // namespace

std::uint64_t particles_moved(const std::vector<std::uint64_t>& held, const Layout& to) {
  std::uint64_t moved = 0, q = 0;
  for (std::size_t k = 0; k < held.size(); ++k) {
    const int rank = static_cast<int>(k);
    const std::uint64_t from = std::max(q, to.first(rank)), until = std::min(q + held[k], to.end(rank));
    moved += held[k] - (until > from ? until - from : 0);
    q += held[k];
  }
  return moved;
}

std::uint64_t surplus(const std::vector<std::uint64_t>& held, const Layout& to) {
  std::uint64_t s = 0;
  for (std::size_t k = 0; k < held.size(); ++k) {
    const std::uint64_t n = to.count(static_cast<int>(k));
    s += held[k] > n ? held[k] - n : 0;
  }
  return s;
}

Layout choose_layout(const LoadBand& band, const std::vector<std::uint64_t>& held) {
  const std::size_t p = static_cast<std::size_t>(band.ranks());
  if (held.size() != p)
    throw Error("internal error: choose_layout got " + std::to_string(held.size()) + " offspring counts for " +
                std::to_string(p) + " ranks");
  Positions q(p + 1, 0), target(p + 1, 0);
  for (std::size_t k = 0; k < p; ++k) {
    q[k + 1] = q[k] + static_cast<std::int64_t>(held[k]);
    target[k + 1] = target[k] + static_cast<std::int64_t>(band.targets()[k]);
  }
  if (q[p] != static_cast<std::int64_t>(band.size()))
    throw Error("internal error: offspring counts add up to " + std::to_string(q[p]) +
                ", not N = " + std::to_string(band.size()));
  if (band.fixed()) return band.target_layout();  // tau = 0: the band is the targets alone

  // The sandwich m <= optimum <= M around r = q clamped into each boundary's range.
  const Box box = boundary_ranges(band);
  Positions r(p + 1);
  for (std::size_t j = 0; j <= p; ++j) r[j] = std::min(std::max(q[j], box.lo[j]), box.hi[j]);
  const Positions big = least_above(r, band), m = greatest_below(r, band);

  Positions b = m;
  for (std::size_t j = 1; j < p;) {
    if (m[j] == big[j]) {
      ++j;
      continue;
    }
    std::size_t e = j;
    while (e < p && m[e] < big[e]) ++e;
    solve_run(band, q, m, big, target, j, e, b);
    j = e;
  }

  Layout layout = as_layout(b);
  // Cheap O(p) checks of what the proof promises: the result is in the band, and the two ways of
  // counting its moves agree.
  std::int64_t by_boundary = 0;
  for (std::size_t j = 1; j < p; ++j) by_boundary += boundary_cost(q, j, b[j]);
  if (!band.admits(layout) || static_cast<std::uint64_t>(by_boundary) != particles_moved(held, layout))
    throw Error("internal error: the layout choice broke its band or miscounted its moves");
  return layout;
}

}  // namespace rsmc
