#include "checkpoint_reading.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "framework/io/checkpoint_file.hpp"

namespace rsmc::fuzz {

void read_whole_checkpoint(const std::string& path) {
  const CheckpointContents header = read_checkpoint_header(MPI_COMM_SELF, path);
  const CheckpointInfo& info = header.info;
  const FilterResult& r = header.progress.result;
  const auto steps = static_cast<std::size_t>(header.progress.step);
  const auto per_step = steps * static_cast<std::size_t>(info.state_dim);
  bool ok = info.particles >= 1 && info.state_dim >= 1 && r.steps == header.progress.step && r.ess.size() == steps &&
            r.log_likelihood_increment.size() == steps && r.mean.size() == per_step && r.variance.size() == per_step &&
            r.resampled.size() == steps;
  if (ok) {
    // The same call as `rsmc info` (every particle on one rank).
    const CheckpointBlock block = read_checkpoint_block(MPI_COMM_SELF, path, info, 0, info.particles);
    ok = block.count == info.particles && block.log_weight.size() == info.particles &&
         block.state.size() == info.particles * static_cast<std::uint64_t>(info.state_dim);
  }
  if (!ok) {
    std::fprintf(stderr, "rsmc fuzz: the checkpoint reader accepted inconsistent contents\n");
    std::abort();
  }
}

}  // namespace rsmc::fuzz
