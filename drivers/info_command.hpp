// `rsmc info FILE`: what a result file, a checkpoint, the chains of `rsmc pmmh` (posterior summaries,
// acceptance, ESS and split R-hat) or an observations file holds, in plain text. The kind is
// recognised from the file's contents (a checkpoint's format_version attribute, a chain file's
// chain_format_version, a result file's /ess dataset, an observations file's /observations or a .csv
// extension). Checkpoints are
// verified (both checksums) as a restart would. Runs on rank 0; other ranks do nothing.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace rsmc::drivers {

struct InfoCommand {
  std::string file;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;  // throws rsmc::Error on an unreadable or unrecognised file
};

}  // namespace rsmc::drivers
