#include "framework/resample/select/parallel_selection.hpp"

#include "base/rng/stream.hpp"

namespace rsmc::parallel_selection_detail {

void check_inputs(Scheme scheme, LocalSampler sampler, const WheelShare& wheel, std::uint64_t samples,
                  std::uint64_t seed, std::uint64_t particles) {
  if (wheel.total == 0) throw Error("resampling: every particle has zero weight");
  if (samples == 0) throw Error("resampling: 0 offspring requested; expected N >= 1");
  if (!rng::seed_is_valid(seed))
    throw Error("resampling: seed " + std::to_string(seed) + " is out of range; expected at most " +
                std::to_string(rng::kMaxSeed));
  if (!(wheel.below <= wheel.total && wheel.local <= wheel.total - wheel.below))
    throw Error("resampling: this rank's slice [" + exact::to_string(wheel.below) + ", " +
                exact::to_string(wheel.below + wheel.local) + ") is not inside the wheel [0, " +
                exact::to_string(wheel.total) + ")");
  if (scheme == Scheme::multinomial && samples > (std::uint64_t(1) << 63))
    throw Error("multinomial resampling supports at most 2^63 particles; got " + std::to_string(samples));
  if (scheme == Scheme::residual && samples >= (std::uint64_t(1) << 32))
    throw Error(
        "residual resampling supports fewer than 2^32 particles (the residual wheel N * T must fit in "
        "128 bits); got " +
        std::to_string(samples));
  if (sampler == LocalSampler::alias && particles >= (std::uint64_t(1) << 32))
    throw Error("--local-sampler alias: " + std::to_string(particles) +
                " particles on one rank; the exact alias table takes at most 2^32 - 1");
  if (particles > 0 && wheel.local > exact::u128(particles) * ~std::uint64_t(0))
    throw Error("resampling: this rank's share of the wheel exceeds what " + std::to_string(particles) +
                " fixed-point weights can add up to");
}

void report_kernel_error(int bits) {
  std::string what;
  auto add = [&](int bit, const char* text) {
    if ((bits & bit) == 0) return;
    if (!what.empty()) what += "; ";
    what += text;
  };
  add(selection_kernels::kWheelMismatch, "the fixed weights do not add up to the rank's share of the wheel");
  add(selection_kernels::kWalkMismatch, "a chunk's sample points and weights disagree");
  add(selection_kernels::kPastTheEnd, "a sample point mapped past the last particle");
  add(selection_kernels::kPointsMismatch, "a chunk produced a different number of points than its range");
  throw Error("internal error in the data-parallel selection: " + what);
}

}  // namespace rsmc::parallel_selection_detail
