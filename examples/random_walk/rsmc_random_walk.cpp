// `rsmc-random-walk`: the standard rsmc command line with one more model, RandomWalk
// (random_walk.hpp), registered as `random_walk` with the [parameters] RandomWalkParams declares.
// Everything else — filter, simulate, info, models, bench, --config, checkpoints, restarts — is rsmc's
// own. random_walk is also the default model, so `--model` may be left out:
//   mpiexec -n 4 rsmc-random-walk filter --config random_walk.toml -o out.h5
#include "drivers/cli.hpp"
#include "drivers/register_model.hpp"
#include "random_walk.hpp"

int main(int argc, char** argv) {
  rsmc::drivers::register_model<RandomWalk>(
      "x_t = x_{t-1} + N(0, q), y_t = x_t + N(0, r), x_0 ~ N(m0, p0) (an out-of-tree example)");
  return rsmc::drivers::run_cli(argc, argv, "random_walk");
}
