// Renumbering: after selection, the offspring of rank k take the new global ids q_k, q_k + 1, ... in
// ancestor order (q_k from the selection: the number of sample points on lower ranks), without any
// communication. What the rest of a resampling needs of it is the ancestor (local index) of every
// offspring the rank holds, in id order: workspace.ancestor.
// The data-parallel selection (select/parallel_selection.hpp) writes those ancestors itself; after
// the serial host selection (select/selection.hpp: Algorithm 1) they come from the offspring counts,
// here.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "base/core/error.hpp"
#include "base/core/instance_copy.hpp"
#include "base/core/reserve.hpp"
#include "framework/resample/resample_workspace.hpp"
#include "framework/resample/select/selection.hpp"

namespace rsmc {

// Where the offspring's ancestors come from: the selection's counts (a host pass), or already in
// workspace.ancestor (the data-parallel selection wrote them).
enum class Renumbering { from_counts, ancestors_given };

// Renumbering on the host: workspace.ancestor[k] = the local index of the parent of the k-th held
// offspring, from the offspring counts of `selection`.
template <class MemorySpace>
void renumber_from_counts(const Selection& selection, std::uint64_t held, ResampleWorkspace<MemorySpace>& workspace) {
  // Two spare entries let the common counts 0, 1 and 2 be written with two unconditional stores (a
  // loop of count iterations mispredicts at almost every particle); the spares are never read.
  reserve(workspace.ancestor, held + 2, "rsmc::ancestor");
  auto host = Kokkos::create_mirror_view(workspace.ancestor);
  std::uint64_t* out = host.data();
  const std::uint64_t* counts = selection.counts.data();
  std::size_t pos = 0;
  for (std::size_t i = 0; i < selection.counts.size(); ++i) {
    const std::uint64_t c = counts[i];
    if (c <= 2) {
      out[pos] = i;
      out[pos + 1] = i;
    } else {
      for (std::uint64_t k = 0; k < c; ++k) out[pos + k] = i;
    }
    pos += c;
  }
  if (pos != held) throw Error("internal error: offspring counts do not add up to the held offspring");
  copy_and_fence(typename MemorySpace::execution_space(), workspace.ancestor, host);
}

}  // namespace rsmc
