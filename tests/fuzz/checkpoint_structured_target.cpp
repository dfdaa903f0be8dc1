// Structure-aware fuzz entry for the checkpoint reader. Raw bytes rarely get past HDF5's own format
// checks, so here the input first shapes a valid checkpoint (particle count, state dimension, step,
// texts and every stored number), which write_checkpoint writes, and then damages it through the
// HDF5 API: attribute values and types, dataset shapes, types and contents, missing objects, and
// reseals it (a new digest: as if another program had written it so), so that the seal passes. The
// file stays well-formed HDF5, so what is tested is rsmc's own validation behind the seal: the
// reader must refuse every damaged checkpoint with rsmc::Error, or accept it consistently.
// (Byte-level damage is the raw `checkpoint` target's job: the seal refuses it before HDF5.)
#include <mpi.h>

#include "byte_reader.hpp"
#include "checkpoint_reading.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/io/sealed_file.hpp"
#include "fuzz_targets.hpp"
#include "hdf5_damage.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {
namespace {

constexpr const char* kAttributes[] = {
    "format_version",    "rng_version",       "step",  "particles",  "state_dim", "log_total_weight",
    "particle_checksum", "progress_checksum", "model", "parameters", "identity",  "configuration"};
constexpr const char* kDatasets[] = {"particles/state",
                                     "particles/log_weight",
                                     "particles/id",
                                     "progress/ess",
                                     "progress/log_likelihood_increment",
                                     "progress/filtered_mean",
                                     "progress/filtered_variance",
                                     "progress/resampled",
                                     "progress/particles_moved",
                                     "progress/log_likelihood_exact"};

}  // namespace

void checkpoint_structured_input(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const int steps = static_cast<int>(in.below(4));
  const int dim = 1 + static_cast<int>(in.below(3));
  const std::uint64_t particles = 1 + in.below(6);

  CheckpointInfo info;
  info.particles = particles;
  info.state_dim = dim;
  info.model = in.text(12);
  info.parameters = in.text(12);
  info.identity = in.text(24);
  info.configuration = in.text(24);

  RunProgress progress;
  progress.step = steps;
  progress.log_total_weight = in.f64();
  progress.log_likelihood.clear();
  FilterResult& r = progress.result;
  r.state_dim = dim;
  const auto T = static_cast<std::size_t>(steps), D = static_cast<std::size_t>(dim);
  // The steps, decoded in the order the committed corpus and regressions were made with.
  for (std::size_t t = 0; t < T; ++t) {
    StepSummary step;
    step.ess = in.f64();
    step.log_likelihood_increment = in.f64();
    progress.log_likelihood.add(step.log_likelihood_increment);
    const std::uint8_t resampled = in.byte();
    ResampleStats& traffic = step.resample_stats;
    for (std::uint64_t* field : {&traffic.particles_moved, &traffic.bytes_moved, &traffic.messages,
                                 &traffic.max_partners, &traffic.minimum_moves})
      *field = in.u64();
    step.invalid_likelihoods = in.byte() < 16 ? in.u64() : 0;  // mostly none, as in real runs
    // step.imbalance keeps its default (1): decoding it would change what the committed inputs mean.
    for (std::size_t c = 0; c < D; ++c) {
      step.mean.push_back(in.f64());
      step.variance.push_back(in.f64());
    }
    r.append(step);
    r.resampled.back() = resampled;  // any byte, not only 0 / 1
  }
  CheckpointBlock block;
  block.count = particles;
  for (std::size_t i = 0; i < particles * D; ++i) block.state.push_back(in.f64());
  for (std::size_t i = 0; i < particles; ++i) block.log_weight.push_back(in.f64());

  const std::string path = scratch_path(".h5");
  write_checkpoint(MPI_COMM_SELF, path, info, progress, block);
  damage_through_hdf5(path, in, kAttributes, kDatasets);
  seal_file(MPI_COMM_SELF, path, SealedKind::checkpoint, "fuzz: cannot reseal the damaged checkpoint");
  read_whole_checkpoint(path);
}

}  // namespace rsmc::fuzz
