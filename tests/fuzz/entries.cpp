// The fuzz targets by name (for the replay test and the per-target libFuzzer binaries).
#include "fuzz_targets.hpp"

namespace rsmc::fuzz {

Entry entry_by_name(const std::string& name) {
  if (name == "config") return config_input;
  if (name == "csv") return csv_input;
  if (name == "checkpoint") return checkpoint_input;
  if (name == "checkpoint_structured") return checkpoint_structured_input;
  if (name == "pmmh_checkpoint") return pmmh_checkpoint_input;
  if (name == "pmmh_checkpoint_structured") return pmmh_checkpoint_structured_input;
  return nullptr;
}

}  // namespace rsmc::fuzz
