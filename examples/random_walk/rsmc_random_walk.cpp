// `rsmc-random-walk`: the standard rsmc command line with one more model, RandomWalk
// (random_walk.hpp), registered as `random_walk` with its [parameters]. Everything else — filter,
// simulate, info, models, bench, --config, checkpoints, restarts — is rsmc's own:
//   mpiexec -n 4 rsmc-random-walk filter --model random_walk --config random_walk.toml -o out.h5
#include "drivers/cli.hpp"
#include "drivers/register_model.hpp"
#include "random_walk.hpp"

int main(int argc, char** argv) {
  rsmc::drivers::register_model(
      "random_walk", "x_t = x_{t-1} + N(0, q), y_t = x_t + N(0, r), x_0 ~ N(m0, p0) (an out-of-tree example)",
      {{"q", "0.5", "process noise variance (> 0)"},
       {"r", "1.0", "observation noise variance (> 0)"},
       {"m0", "0.0", "prior mean of x_0"},
       {"p0", "2.0", "prior variance of x_0 (> 0)"}},
      [](const rsmc::drivers::ModelParameters& given) {
        return RandomWalk(given.number("q", 0.5), given.number("r", 1.0), given.number("m0", 0.0),
                          given.number("p0", 2.0));
      });
  return rsmc::drivers::run_cli(argc, argv);
}
