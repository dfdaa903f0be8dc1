// Piecewise-affine functions on an interval of integers, with the operations the layout choice's
// dynamic programme needs (framework/resample/rebalance/layout_choice.cpp): evaluation, the sliding-window
// minimum (erosion), a shift, a restriction to a sub-interval, adding a boundary's move cost, and
// the minimiser in a window. Integer arithmetic only, so every rank computes the same bits.
//
// A function is a list of pieces: piece i starts at integer x_i with value v_i and slope s_i, and
// covers x_i .. x_{i+1} - 1 (the last piece ends at `last`): f(t) = v_i + s_i (t - x_i). Only the
// values at integers matter; pieces need not join continuously. Values and positions must stay
// within int64 (the layout choice keeps positions <= 2^62 and values <= N).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "base/core/error.hpp"

namespace rsmc {

class IntegerPwl {
 public:
  struct Piece {
    std::int64_t x, v, s;  // start, value at the start, slope
  };

  // The constant `value` on first..last.
  IntegerPwl(std::int64_t first, std::int64_t last, std::int64_t value) : pieces_{{first, value, 0}}, last_(last) {}
  IntegerPwl(std::vector<Piece> pieces, std::int64_t last) : pieces_(std::move(pieces)), last_(last) {
    if (pieces_.empty() || pieces_.front().x > last_) throw Error("internal error: an empty integer function");
  }

  std::int64_t first() const { return pieces_.front().x; }
  std::int64_t last() const { return last_; }
  const std::vector<Piece>& pieces() const { return pieces_; }
  // The last integer of piece i.
  std::int64_t piece_last(std::size_t i) const { return i + 1 < pieces_.size() ? pieces_[i + 1].x - 1 : last_; }

  // The piece holding t (first() <= t <= last()).
  std::size_t piece_at(std::int64_t t) const {
    auto it =
        std::upper_bound(pieces_.begin(), pieces_.end(), t, [](std::int64_t a, const Piece& p) { return a < p.x; });
    return static_cast<std::size_t>(it - pieces_.begin()) - 1;
  }
  std::int64_t operator()(std::int64_t t) const {
    const Piece& p = pieces_[piece_at(t)];
    return p.v + p.s * (t - p.x);
  }

  // h(y) = min { f(x) : x in [y - w, y] and in the domain }, on first() .. last() + w (w >= 0).
  // The minimum over a window is at one of its ends or at a local minimum inside, so h is the lower
  // envelope of f(y), f(y - w) and the sliding minimum over f's local minima.
  IntegerPwl eroded(std::int64_t w) const;
  // f(t - d): the same function moved right by d.
  IntegerPwl shifted(std::int64_t d) const {
    std::vector<Piece> out = pieces_;
    for (Piece& p : out) p.x += d;
    return IntegerPwl(std::move(out), last_ + d);
  }
  // f restricted to lo..hi (inside the domain).
  IntegerPwl restricted(std::int64_t lo, std::int64_t hi) const;
  // f(t) + |clamp(t, a, c) - b| for a <= b <= c: the particles a layout boundary at t moves when the
  // held boundary is at b and its neighbours at a and c (layout_choice.cpp).
  IntegerPwl plus_boundary_cost(std::int64_t a, std::int64_t b, std::int64_t c) const;
  // The smallest value on lo..hi; `at` receives its position, of all such the one closest to
  // `prefer` (the lower one on a tie).
  std::int64_t minimum(std::int64_t lo, std::int64_t hi, std::int64_t prefer, std::int64_t& at) const;

 private:
  std::vector<Piece> pieces_;
  std::int64_t last_;
};

namespace integer_pwl_detail {

// Appends the piece (x, v, s) unless it continues the last piece's affine function.
inline void append(std::vector<IntegerPwl::Piece>& out, std::int64_t x, std::int64_t v, std::int64_t s) {
  if (!out.empty()) {
    const IntegerPwl::Piece& p = out.back();
    if (p.s == s && p.v + p.s * (x - p.x) == v) return;
  }
  out.push_back({x, v, s});
}

// An affine candidate on an interval: value v at its start, slope s.
struct Affine {
  std::int64_t v, s;
};

// Appends the lower envelope of `n` affine candidates (values given at lo) on the integers lo..hi.
inline void append_envelope(std::vector<IntegerPwl::Piece>& out, std::int64_t lo, std::int64_t hi, const Affine* c,
                            int n) {
  std::int64_t t = lo;
  while (t <= hi) {
    // The lowest at t; of equal ones the smallest slope (it stays lowest longest to the right).
    int best = 0;
    auto value = [&](int i, std::int64_t at) { return c[i].v + c[i].s * (at - lo); };
    for (int i = 1; i < n; ++i) {
      const std::int64_t vi = value(i, t), vb = value(best, t);
      if (vi < vb || (vi == vb && c[i].s < c[best].s)) best = i;
    }
    const std::int64_t vb = value(best, t);
    append(out, t, vb, c[best].s);
    // The first integer after t where a candidate of smaller slope drops strictly below.
    std::int64_t next = hi + 1;
    for (int i = 0; i < n; ++i) {
      if (c[i].s >= c[best].s) continue;
      const std::int64_t gap = value(i, t) - vb;        // >= 0
      const std::int64_t closing = c[best].s - c[i].s;  // > 0
      next = std::min(next, t + gap / closing + 1);
    }
    t = next;
  }
}

}  // namespace integer_pwl_detail

inline IntegerPwl IntegerPwl::eroded(std::int64_t w) const {
  using integer_pwl_detail::Affine;
  if (w < 0) throw Error("internal error: negative erosion width");
  if (w == 0) return *this;
  const std::int64_t a = first(), z = last_;
  const IntegerPwl& f = *this;

  // Candidate local minima: piece starts and ends with no lower neighbour on the right and a
  // strictly higher one (or none) on the left. Every local minimum's leftmost point is one; extra
  // candidates only add values f takes inside the window, which cannot lower the minimum.
  std::vector<std::int64_t> minima;
  auto consider = [&](std::int64_t t) {
    const bool left = t == a || f(t - 1) > f(t);
    const bool right = t == z || f(t + 1) >= f(t);
    if (left && right && (minima.empty() || minima.back() < t)) minima.push_back(t);
  };
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    consider(pieces_[i].x);
    consider(piece_last(i));
  }

  // s(y) = min f(mu) over candidates mu in [y - w, y]: a step function, by a monotone deque.
  struct Step {
    std::int64_t y;
    bool some;
    std::int64_t value;
  };
  std::vector<Step> steps;
  {
    std::deque<std::int64_t> window;  // candidate positions, values increasing
    std::size_t enter = 0, leave = 0;
    std::int64_t y = a;
    while (y <= z + w) {
      while (enter < minima.size() && minima[enter] <= y) {
        while (!window.empty() && f(window.back()) >= f(minima[enter])) window.pop_back();
        window.push_back(minima[enter++]);
      }
      while (leave < minima.size() && minima[leave] + w < y) ++leave;
      while (!window.empty() && window.front() + w < y) window.pop_front();
      steps.push_back({y, !window.empty(), window.empty() ? 0 : f(window.front())});
      // Next change: a candidate enters, or one leaves.
      std::int64_t next = z + w + 1;
      if (enter < minima.size()) next = std::min(next, minima[enter]);
      if (leave < minima.size()) next = std::min(next, minima[leave] + w + 1);
      y = std::max(next, y + 1);
    }
  }

  // Elementary intervals on which f(y), f(y - w) and s(y) are each affine (or absent).
  std::vector<std::int64_t> cuts;
  cuts.reserve(2 * pieces_.size() + steps.size() + 4);
  for (const Piece& p : pieces_) {
    cuts.push_back(p.x);
    cuts.push_back(p.x + w);
  }
  for (const Step& s : steps) cuts.push_back(s.y);
  cuts.push_back(z + 1);
  cuts.push_back(z + w + 1);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  std::vector<Piece> out;
  std::size_t step = 0;
  for (std::size_t i = 0; i + 1 < cuts.size() && cuts[i] <= z + w; ++i) {
    const std::int64_t lo = cuts[i], hi = cuts[i + 1] - 1;
    while (step + 1 < steps.size() && steps[step + 1].y <= lo) ++step;
    Affine c[3];
    int n = 0;
    if (lo <= z) {
      const Piece& p = pieces_[piece_at(lo)];
      c[n++] = {p.v + p.s * (lo - p.x), p.s};
    }
    if (lo - w >= a) {
      const Piece& p = pieces_[piece_at(lo - w)];
      c[n++] = {p.v + p.s * (lo - w - p.x), p.s};
    }
    if (steps[step].some) c[n++] = {steps[step].value, 0};
    integer_pwl_detail::append_envelope(out, lo, hi, c, n);
  }
  return IntegerPwl(std::move(out), z + w);
}

inline IntegerPwl IntegerPwl::restricted(std::int64_t lo, std::int64_t hi) const {
  if (lo < first() || hi > last_ || lo > hi) throw Error("internal error: restriction outside the domain");
  std::vector<Piece> out;
  for (std::size_t i = piece_at(lo); i < pieces_.size() && pieces_[i].x <= hi; ++i) {
    const Piece& p = pieces_[i];
    const std::int64_t x = std::max(p.x, lo);
    out.push_back({x, p.v + p.s * (x - p.x), p.s});
  }
  return IntegerPwl(std::move(out), hi);
}

inline IntegerPwl IntegerPwl::plus_boundary_cost(std::int64_t a, std::int64_t b, std::int64_t c) const {
  auto cost = [&](std::int64_t t) {
    const std::int64_t clamped = std::min(std::max(t, a), c);
    return clamped >= b ? clamped - b : b - clamped;
  };
  // The cost is affine between its breakpoints a, b, c: cut the pieces there too.
  std::vector<std::int64_t> cuts;
  for (const Piece& p : pieces_) cuts.push_back(p.x);
  for (std::int64_t t : {a, b, c})
    if (t > first() && t <= last_) cuts.push_back(t);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<Piece> out;
  out.reserve(cuts.size());
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const std::int64_t x = cuts[i];
    const std::int64_t end = i + 1 < cuts.size() ? cuts[i + 1] - 1 : last_;
    const Piece& p = pieces_[piece_at(x)];
    const std::int64_t slope = p.s + (end > x ? cost(x + 1) - cost(x) : 0);
    integer_pwl_detail::append(out, x, p.v + p.s * (x - p.x) + cost(x), slope);
  }
  return IntegerPwl(std::move(out), last_);
}

inline std::int64_t IntegerPwl::minimum(std::int64_t lo, std::int64_t hi, std::int64_t prefer, std::int64_t& at) const {
  if (lo < first() || hi > last_ || lo > hi) throw Error("internal error: minimum outside the domain");
  bool found = false;
  std::int64_t best = 0;
  auto offer = [&](std::int64_t t, std::int64_t value) {
    const auto distance = [&](std::int64_t u) { return u >= prefer ? u - prefer : prefer - u; };
    if (!found || value < best ||
        (value == best && (distance(t) < distance(at) || (distance(t) == distance(at) && t < at)))) {
      found = true;
      best = value;
      at = t;
    }
  };
  for (std::size_t i = piece_at(lo); i < pieces_.size() && pieces_[i].x <= hi; ++i) {
    const Piece& p = pieces_[i];
    const std::int64_t from = std::max(p.x, lo), to = std::min(piece_last(i), hi);
    if (p.s > 0) {
      offer(from, p.v + p.s * (from - p.x));
    } else if (p.s < 0) {
      offer(to, p.v + p.s * (to - p.x));
    } else {
      offer(std::min(std::max(prefer, from), to), p.v);
    }
  }
  return best;
}

}  // namespace rsmc
