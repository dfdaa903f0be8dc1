// Where renumbered offspring must go: the communication plan of neighbour rebalancing, separate
// from the particle data it moves (as in Cabana).
//
// After selection, rank k holds the offspring with new ids [first_id, first_id + offspring): a
// contiguous range, and ranges are ordered by rank. The new layout (framework/particles/layout.hpp;
// chosen by layout_choice.hpp) says rank r must end with ids [first(r), end(r)). So rank k keeps the
// overlap with its own new range and sends each other piece of its held range, a contiguous id
// range, to the one rank whose new range contains it: only ranks whose new range overlaps the held
// range, mostly k-1 and k+1. Because held ranges and new ranges are both ordered by rank, two ranks
// never send to each other in both directions (a send from a to b > a and one from b to a would
// need ids of H_a above ids of H_b).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "framework/particles/layout.hpp"

namespace rsmc {

struct IdRange {
  std::uint64_t first = 0, end = 0;  // [first, end)
  std::uint64_t size() const { return end > first ? end - first : 0; }
};

struct RebalancePlan {
  struct Send {
    int rank;     // destination
    IdRange ids;  // new global ids it receives from us
  };
  IdRange held;              // offspring ids this rank holds after selection
  IdRange kept;              // the part of `held` inside this rank's own new range
  std::vector<Send> sends;   // the rest, by destination (ascending rank, ascending ids)
  std::uint64_t to_receive;  // particles of our new range held by other ranks

  RebalancePlan(const Layout& to, int rank, std::uint64_t first_id, std::uint64_t offspring)
      : held{first_id, first_id + offspring} {
    const IdRange block{to.first(rank), to.end(rank)};
    kept = {std::max(held.first, block.first), std::min(held.end, block.end)};
    if (kept.first >= kept.end) kept = {block.first, block.first};
    to_receive = block.size() - kept.size();
    if (held.size() == 0) return;
    for (int r = to.owner(held.first); r <= to.owner(held.end - 1); ++r) {
      if (r == rank) continue;
      const IdRange piece{std::max(held.first, to.first(r)), std::min(held.end, to.end(r))};
      if (piece.size() > 0) sends.push_back({r, piece});
    }
  }

  std::uint64_t particles_sent() const {
    std::uint64_t n = 0;
    for (const auto& s : sends) n += s.ids.size();
    return n;
  }
};

}  // namespace rsmc
