// A model with every required member, each of which tests/compile/model_traits.sh leaves out in turn
// (-DWITHOUT_<MEMBER>), or declares without const (-DNONCONST_<MEMBER>): the compile must then fail
// with the one message of framework/model/model_traits.hpp that names the member ("missing", or "is
// not const"). With nothing left out it must compile.
#ifdef NONCONST_INITIAL
#define INITIAL_CONST
#else
#define INITIAL_CONST const
#endif
#ifdef NONCONST_TRANSITION
#define TRANSITION_CONST
#else
#define TRANSITION_CONST const
#endif
#ifdef NONCONST_LOG_LIKELIHOOD
#define LOG_LIKELIHOOD_CONST
#else
#define LOG_LIKELIHOOD_CONST const
#endif
#ifdef NONCONST_SIMULATE_OBSERVATION
#define SIMULATE_OBSERVATION_CONST
#else
#define SIMULATE_OBSERVATION_CONST const
#endif
#include "framework/model/model_traits.hpp"

struct Model {
#ifndef WITHOUT_NAME
  static constexpr const char* name = "complete";
#endif
#ifndef WITHOUT_STATE_DIM
  int state_dim() const { return 1; }
#endif
#ifndef WITHOUT_OBS_DIM
  int obs_dim() const { return 1; }
#endif
#ifndef WITHOUT_INITIAL
  void initial(rsmc::StateView x, rsmc::rng::ModelStream&) INITIAL_CONST { x[0] = 0.0; }
#endif
#ifndef WITHOUT_TRANSITION
  void transition(rsmc::ConstStateView from, rsmc::StateView to, int, rsmc::rng::ModelStream&) TRANSITION_CONST {
    to[0] = from[0];
  }
#endif
#ifndef WITHOUT_LOG_LIKELIHOOD
  double log_likelihood(rsmc::ConstStateView, rsmc::ObservationView, int) LOG_LIKELIHOOD_CONST { return 0.0; }
#endif
#ifndef WITHOUT_SIMULATE_OBSERVATION
  void simulate_observation(rsmc::ConstStateView x, rsmc::ObservationOut y, int,
                            rsmc::rng::ModelStream&) SIMULATE_OBSERVATION_CONST {
    y[0] = x[0];
  }
#endif
};

static_assert(rsmc::check_model<Model>(), "the model is incomplete (see the messages above)");

int main() { return 0; }
