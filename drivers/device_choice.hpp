// --device: which Kokkos execution space runs `rsmc filter`, `rsmc pmmh`'s filters and `rsmc simulate`,
// in one binary that holds both.
//   host  Kokkos::DefaultHostExecutionSpace (Serial, or OpenMP threads)
//   cuda  Kokkos::Cuda, the default execution space of a Kokkos CUDA build
// A build without a device backend has only `host`. The default is the build's default execution
// space: `cuda` in a CUDA build (Kokkos' initialisation has already found the GPU), `host`
// otherwise. The results are meant not to depend on the choice (docs/reproducibility.md says what
// that rests on; a GPU has yet to check it); the filter's and pmmh's outputs record it (attributes
// device and execution_space).
#pragma once

#include <Kokkos_Core.hpp>
#include <cctype>
#include <string>
#include <type_traits>

#include "base/core/error.hpp"
#include "drivers/field_flags.hpp"

namespace rsmc::drivers {

// Whether this build's default execution space is a device (not the host's own).
constexpr bool kBuildHasDevice = !std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>;

// The device name of the build's default execution space: Kokkos' name for it in lower case
// ("cuda"; "hip" or "sycl" in builds for those, which rsmc does not make yet), or "host" when the
// default execution space is the host's own.
inline std::string default_device() {
  if (!kBuildHasDevice) return "host";
  std::string name = Kokkos::DefaultExecutionSpace::name();
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name;
}

// `device` as --device gave it ("" for the default), checked against this build; throws a one-line
// error naming the option and what this build offers.
inline std::string resolve_device(const std::string& device) {
  if (device.empty()) return default_device();
  if (device == "host" || device == default_device()) return device;
  if (device == "cuda")
    throw Error("--device cuda: this rsmc is built without CUDA (its Kokkos runs on " +
                std::string(Kokkos::DefaultExecutionSpace::name()) +
                "); expected host, or build for a GPU (docs/gpu.md)");
  throw Error(input_name("device") + ": '" + device + "' is not a device; expected host" +
              (kBuildHasDevice ? " or " + default_device() : std::string()));
}

// f(space) with a default instance of the execution space that `resolved` (resolve_device's result)
// names: the one dispatch of filter, pmmh and simulate. The host's instantiation exists only where
// it differs from the default (a device build), so a host build compiles f once.
template <class F>
decltype(auto) with_device_space(const std::string& resolved, F&& f) {
  if constexpr (kBuildHasDevice)
    if (resolved == "host") return f(Kokkos::DefaultHostExecutionSpace());
  return f(Kokkos::DefaultExecutionSpace());
}

}  // namespace rsmc::drivers
