// What a model type provides, detected at compile time: the members every model needs, and the
// optional ones that commands use where present (docs/models.md).
//
// Required, with the signatures the engine calls (the model's own may take references to const or
// return a type convertible to the one shown):
//   static constexpr const char* name;
//   int state_dim() const;   int obs_dim() const;
//   void initial(StateView x, rng::ModelStream& rng) const;
//   void transition(ConstStateView from, StateView to, int step, rng::ModelStream& rng) const;
//   double log_likelihood(ConstStateView x, ObservationView y, int step) const;
//   void simulate_observation(ConstStateView x, ObservationOut y, int step, rng::ModelStream& rng) const;
// A model that is only filtered, never simulated, may leave out simulate_observation
// (is_filter_model_v); is_model_v asks for all of them.
//
// check_filter_model<M>() and check_model<M>() fail to compile with one message per missing member,
// naming it ("missing", or "is not const" for one declared without const); the engine (BootstrapFilter) and the
// simulator (simulate) call them in a static_assert.
//
// Optional: static constexpr int transition_normals (a speed hint, see transition_normals_v),
// double log_likelihood_bound(ObservationView y, int step) const (see has_log_likelihood_bound_v),
// params().describe() (the text identifying a run's parameters), state_name(c) and observation_name(j)
// (component names for files and plots).
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "base/rng/counter_stream.hpp"
#include "framework/model/state_view.hpp"

namespace rsmc {

namespace model_traits_detail {

template <class M>
const M& model();  // declared only: for decltype

// Each required member function is detected on a `Ref` to the model: on `const M&`, as the engine
// calls it (HasX), and on `M&` (HasMutableX), so that a member that exists but is not const is
// reported as such rather than as missing.
template <class Ref, class = void>
struct CallsStateDim : std::false_type {};
template <class Ref>
struct CallsStateDim<Ref, std::enable_if_t<std::is_convertible_v<decltype(std::declval<Ref>().state_dim()), int>>>
    : std::true_type {};

template <class Ref, class = void>
struct CallsObsDim : std::false_type {};
template <class Ref>
struct CallsObsDim<Ref, std::enable_if_t<std::is_convertible_v<decltype(std::declval<Ref>().obs_dim()), int>>>
    : std::true_type {};

template <class Ref, class = void>
struct CallsInitial : std::false_type {};
template <class Ref>
struct CallsInitial<Ref, std::void_t<decltype(std::declval<Ref>().initial(
                             std::declval<StateView>(), std::declval<rng::ModelStream&>()))>> : std::true_type {};

template <class Ref, class = void>
struct CallsTransition : std::false_type {};
template <class Ref>
struct CallsTransition<
    Ref, std::void_t<decltype(std::declval<Ref>().transition(std::declval<ConstStateView>(), std::declval<StateView>(),
                                                             0, std::declval<rng::ModelStream&>()))>> : std::true_type {
};

template <class Ref, class = void>
struct CallsLogLikelihood : std::false_type {};
template <class Ref>
struct CallsLogLikelihood<
    Ref,
    std::enable_if_t<std::is_convertible_v<decltype(std::declval<Ref>().log_likelihood(
                                               std::declval<ConstStateView>(), std::declval<ObservationView>(), 0)),
                                           double>>> : std::true_type {};

template <class Ref, class = void>
struct CallsSimulateObservation : std::false_type {};
template <class Ref>
struct CallsSimulateObservation<
    Ref, std::void_t<decltype(std::declval<Ref>().simulate_observation(
             std::declval<ConstStateView>(), std::declval<ObservationOut>(), 0, std::declval<rng::ModelStream&>()))>>
    : std::true_type {};

template <class M, class = void>
struct HasName : std::false_type {};
template <class M>
struct HasName<M, std::enable_if_t<std::is_convertible_v<decltype(M::name), const char*>>> : std::true_type {};

template <class M>
using HasStateDim = CallsStateDim<const M&>;
template <class M>
using HasObsDim = CallsObsDim<const M&>;
template <class M>
using HasInitial = CallsInitial<const M&>;
template <class M>
using HasTransition = CallsTransition<const M&>;
template <class M>
using HasLogLikelihood = CallsLogLikelihood<const M&>;
template <class M>
using HasSimulateObservation = CallsSimulateObservation<const M&>;

// A required member M has, but only as a non-const member function: the message says "is not const".
template <template <class, class> class Calls, class M>
inline constexpr bool only_mutable_v = !Calls<const M&, void>::value && Calls<M&, void>::value;

template <class M, class = void>
struct TransitionNormals : std::integral_constant<int, 0> {};
template <class M>
struct TransitionNormals<M, std::enable_if_t<std::is_convertible_v<decltype(M::transition_normals), int>>>
    : std::integral_constant<int, M::transition_normals> {};

template <class M, class = void>
struct HasLogLikelihoodBound : std::false_type {};
template <class M>
struct HasLogLikelihoodBound<
    M, std::enable_if_t<std::is_convertible_v<
           decltype(model<M>().log_likelihood_bound(std::declval<ObservationView>(), 0)), double>>> : std::true_type {};

template <class M, class = void>
struct HasParameterDescription : std::false_type {};
template <class M>
struct HasParameterDescription<M, std::void_t<decltype(std::string(model<M>().params().describe()))>> : std::true_type {
};

template <class M, class = void>
struct HasStateName : std::false_type {};
template <class M>
struct HasStateName<M, std::void_t<decltype(std::string(model<M>().state_name(0)))>> : std::true_type {};

template <class M, class = void>
struct HasObservationName : std::false_type {};
template <class M>
struct HasObservationName<M, std::void_t<decltype(std::string(model<M>().observation_name(0)))>> : std::true_type {};

}  // namespace model_traits_detail

// Whether M can be filtered (everything but simulate_observation), and whether it is a full model.
template <class M>
inline constexpr bool is_filter_model_v =
    model_traits_detail::HasName<M>::value&& model_traits_detail::HasStateDim<M>::value&&
        model_traits_detail::HasObsDim<M>::value&& model_traits_detail::HasInitial<M>::value&&
            model_traits_detail::HasTransition<M>::value&& model_traits_detail::HasLogLikelihood<M>::value;
template <class M>
inline constexpr bool is_model_v = is_filter_model_v<M>&& model_traits_detail::HasSimulateObservation<M>::value;

// The optional members.
// transition_normals_v<M>: M::transition_normals (`static constexpr int`), the number of normals each
// transition() draws, or 0 when M does not declare it. A hint for speed only: the engine then
// computes that many normals per particle ahead, for a batch at once (step_kernels.hpp); the draws
// have the same bits either way, also when the model draws more or fewer.
template <class M>
inline constexpr int transition_normals_v = model_traits_detail::TransitionNormals<M>::value;
// has_log_likelihood_bound_v<M>: M::log_likelihood_bound(y, step), called on the host once per step
// with an observation, returns an upper bound of log_likelihood(x, y, step) over every state x (+inf
// or NaN: none for this y). The engine then knows the shift of the step's weights before it weighs
// them, so that on a host backend weighing and the weight sums run as one pass
// (step_kernels::weigh_and_sum; BootstrapFilter::weight_shift says when the bound is used: it
// changes the bits of the results, not their distribution).
template <class M>
inline constexpr bool has_log_likelihood_bound_v = model_traits_detail::HasLogLikelihoodBound<M>::value;
template <class M>
inline constexpr bool has_parameter_description_v = model_traits_detail::HasParameterDescription<M>::value;
template <class M>
inline constexpr bool has_state_name_v = model_traits_detail::HasStateName<M>::value;
template <class M>
inline constexpr bool has_observation_name_v = model_traits_detail::HasObservationName<M>::value;

// True, or a compile error naming each member M lacks, one message per member: "missing" or, for a
// member that exists without const, "is not const": static_assert(check_filter_model<M>(), "...").
template <class M>
constexpr bool check_filter_model() {
  using namespace model_traits_detail;
  static_assert(HasName<M>::value, "rsmc model: missing `static constexpr const char* name`");
  static_assert(!only_mutable_v<CallsStateDim, M>,
                "rsmc model: `state_dim` is not const: declare it `int state_dim() const`");
  static_assert(HasStateDim<M>::value || only_mutable_v<CallsStateDim, M>,
                "rsmc model: missing `int state_dim() const`");
  static_assert(!only_mutable_v<CallsObsDim, M>,
                "rsmc model: `obs_dim` is not const: declare it `int obs_dim() const`");
  static_assert(HasObsDim<M>::value || only_mutable_v<CallsObsDim, M>, "rsmc model: missing `int obs_dim() const`");
  static_assert(
      !only_mutable_v<CallsInitial, M>,
      "rsmc model: `initial` is not const: declare it `void initial(StateView x, rng::ModelStream& rng) const`");
  static_assert(HasInitial<M>::value || only_mutable_v<CallsInitial, M>,
                "rsmc model: missing `void initial(StateView x, rng::ModelStream& rng) const`");
  static_assert(!only_mutable_v<CallsTransition, M>,
                "rsmc model: `transition` is not const: declare it `void transition(ConstStateView from, StateView to, "
                "int step, rng::ModelStream& rng) const`");
  static_assert(HasTransition<M>::value || only_mutable_v<CallsTransition, M>,
                "rsmc model: missing `void transition(ConstStateView from, StateView to, int step, rng::ModelStream& "
                "rng) const`");
  static_assert(!only_mutable_v<CallsLogLikelihood, M>,
                "rsmc model: `log_likelihood` is not const: declare it `double log_likelihood(ConstStateView x, "
                "ObservationView y, int step) const`");
  static_assert(HasLogLikelihood<M>::value || only_mutable_v<CallsLogLikelihood, M>,
                "rsmc model: missing `double log_likelihood(ConstStateView x, ObservationView y, int step) const`");
  return is_filter_model_v<M>;
}

template <class M>
constexpr bool check_model() {
  using namespace model_traits_detail;
  static_assert(!only_mutable_v<CallsSimulateObservation, M>,
                "rsmc model: `simulate_observation` is not const: declare it `void simulate_observation(ConstStateView "
                "x, ObservationOut y, int step, rng::ModelStream& rng) const`");
  static_assert(HasSimulateObservation<M>::value || only_mutable_v<CallsSimulateObservation, M>,
                "rsmc model: missing `void simulate_observation(ConstStateView x, ObservationOut y, int step, "
                "rng::ModelStream& rng) const`");
  return check_filter_model<M>() && is_model_v<M>;
}

}  // namespace rsmc
