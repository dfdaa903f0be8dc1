// The engine's propagate kernel (framework/engine/step_kernels.hpp: propagate_states) in batches,
// with a batch's normals computed ahead when the model declares transition_normals: every particle's
// new state must have the bits of model.transition called alone with the particle's own stream
// rng::ModelStream(seed, propagate, step, global id). The hint is a speed hint only, so the cases
// include a model that declares more normals than it draws, fewer, more than the engine computes
// ahead (kMaxPregeneratedPairs), none, and an odd number; particle counts that are not a multiple
// of the batch, and a first global id that is not a multiple of it either.
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>

#include "base/rng/counter_stream.hpp"
#include "framework/engine/step_kernels.hpp"
#include "framework/model/model_traits.hpp"
#include "framework/model/state_view.hpp"

namespace {

// Draws `Draws` normals and one uniform, declares `Hint` normals (no declaration when Hint < 0).
template <int Draws, int Hint>
struct NormalsModel {
  static constexpr const char* name = "normals_model";
  RSMC_HOST_DEVICE int state_dim() const { return Draws + 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(rsmc::StateView x, rsmc::rng::ModelStream&) const {
    for (int c = 0; c <= Draws; ++c) x[c] = 0.0;
  }
  RSMC_HOST_DEVICE void transition(rsmc::ConstStateView from, rsmc::StateView to, int,
                                   rsmc::rng::ModelStream& rng) const {
    for (int c = 0; c < Draws; ++c) to[c] = from[c] + rng.normal();
    to[Draws] = from[Draws] + rng.uniform();
  }
  RSMC_HOST_DEVICE double log_likelihood(rsmc::ConstStateView, rsmc::ObservationView, int) const { return 0.0; }
};

template <int Draws, int Hint>
struct HintedNormalsModel : NormalsModel<Draws, Hint> {
  static constexpr int transition_normals = Hint;
};

template <int Draws, int Hint>
using ModelFor = std::conditional_t<(Hint < 0), NormalsModel<Draws, Hint>, HintedNormalsModel<Draws, Hint>>;

using Host = Kokkos::DefaultHostExecutionSpace;
using States = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;

// Propagates n particles from states x_ic = i + c / 8 through the engine's kernel, and each particle
// alone; returns how many particles' new states differ in any bit.
template <class Model>
std::size_t mismatches(std::size_t n, std::uint64_t first, int step, std::uint64_t seed) {
  const Model model;
  const int d = model.state_dim();
  States from("from", n, static_cast<std::size_t>(d)), to("to", n, static_cast<std::size_t>(d));
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) from(i, static_cast<std::size_t>(c)) = static_cast<double>(i) + c / 8.0;
  rsmc::step_kernels::propagate_states<Host>(model, from, to, step, first, seed);
  std::size_t bad = 0;
  double alone[16];
  for (std::size_t i = 0; i < n; ++i) {
    rsmc::rng::ModelStream stream(seed, rsmc::rng::Purpose::propagate, static_cast<std::uint32_t>(step), first + i);
    model.transition(rsmc::particle_state_const(from, i), rsmc::StateView{alone, 1}, step, stream);
    bool same = true;
    for (int c = 0; c < d; ++c) {
      const double engine = to(i, static_cast<std::size_t>(c));
      same = same && std::memcmp(&engine, &alone[c], sizeof engine) == 0;
    }
    if (!same) ++bad;
  }
  return bad;
}

}  // namespace

TEST_CASE("the batched propagate kernel gives each particle the bits of its own stream", "[propagate]") {
  using rsmc::step_kernels::pregenerated_pairs;
  // What the engine computes ahead for these models (so the cases below cover each path).
  STATIC_REQUIRE(pregenerated_pairs<Host, ModelFor<1, -1>>() == 0);
  STATIC_REQUIRE(pregenerated_pairs<Host, ModelFor<1, 1>>() == 1);
  STATIC_REQUIRE(pregenerated_pairs<Host, ModelFor<3, 3>>() == 2);
  STATIC_REQUIRE(pregenerated_pairs<Host, ModelFor<12, 12>>() == rsmc::step_kernels::kMaxPregeneratedPairs);

  for (const std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{1000}}) {
    for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{77}, (std::uint64_t{1} << 32) - 100}) {
      INFO("n " << n << ", first global id " << first);
      CHECK(mismatches<ModelFor<1, -1>>(n, first, 3, 11) == 0);   // no hint: every normal from the stream
      CHECK(mismatches<ModelFor<1, 1>>(n, first, 3, 11) == 0);    // exact hint (SV's case)
      CHECK(mismatches<ModelFor<1, 6>>(n, first, 3, 11) == 0);    // declares more than it draws
      CHECK(mismatches<ModelFor<5, 2>>(n, first, 3, 11) == 0);    // declares fewer: the rest on the fly
      CHECK(mismatches<ModelFor<3, 3>>(n, first, 3, 11) == 0);    // odd: half of the last pair unused
      CHECK(mismatches<ModelFor<12, 12>>(n, first, 3, 11) == 0);  // beyond what is computed ahead
    }
  }
}

TEST_CASE("the batched propagate kernel's draws depend on step, seed and global id", "[propagate]") {
  // The comparison above must be able to fail: the engine's states against a stream of another
  // step, seed or first id differ.
  const ModelFor<1, 1> model;
  const std::size_t n = 300;
  States from("from", n, 2), to("to", n, 2);
  Kokkos::deep_copy(from, 0.0);
  rsmc::step_kernels::propagate_states<Host>(model, from, to, 3, 5, 11);
  double alone[2];
  std::size_t other_step = 0, other_seed = 0, other_id = 0;
  for (std::size_t i = 0; i < n; ++i) {
    rsmc::rng::ModelStream a(11, rsmc::rng::Purpose::propagate, 4, 5 + i),
        b(12, rsmc::rng::Purpose::propagate, 3, 5 + i), c(11, rsmc::rng::Purpose::propagate, 3, 6 + i);
    model.transition(rsmc::particle_state_const(from, i), rsmc::StateView{alone, 1}, 3, a);
    other_step += alone[0] != to(i, 0);
    model.transition(rsmc::particle_state_const(from, i), rsmc::StateView{alone, 1}, 3, b);
    other_seed += alone[0] != to(i, 0);
    model.transition(rsmc::particle_state_const(from, i), rsmc::StateView{alone, 1}, 3, c);
    other_id += alone[0] != to(i, 0);
  }
  CHECK(other_step == n);
  CHECK(other_seed == n);
  CHECK(other_id == n);
}
