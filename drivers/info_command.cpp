#include "drivers/info_command.hpp"

#include <hdf5.h>

#include <algorithm>
#include <fstream>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <type_traits>
#include <variant>

#include "drivers/chain_summary.hpp"
#include "drivers/collective.hpp"
#include "base/core/error.hpp"
#include "framework/engine/step_series.hpp"
#include "framework/io/chain_file.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/io/hdf5_observations.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/io/result_file.hpp"
#include "framework/io/sealed_file.hpp"
#include "framework/smooth/smoothed_file.hpp"
#include "framework/io/trace_file.hpp"

namespace rsmc::drivers {
namespace {

enum class Kind { checkpoint, result, observations, trace, smoothed, chains, unknown };

// Whether the file holds any of `needles` among its bytes (read in pieces, without HDF5).
bool contains_any(const std::string& path, const std::vector<std::string>& needles) {
  std::ifstream in(path, std::ios::binary);
  std::size_t longest = 0;
  for (const std::string& n : needles) longest = std::max(longest, n.size());
  std::string window;
  std::vector<char> piece(std::size_t{1} << 20);
  while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0) {
    window.append(piece.data(), static_cast<std::size_t>(in.gcount()));
    for (const std::string& n : needles)
      if (window.find(n) != std::string::npos) return true;
    window.erase(0, window.size() > longest ? window.size() - longest : 0);  // keep a tail for matches across pieces
  }
  return false;
}

// A checkpoint or trace without a seal (written before checkpoint format 2 and trace format 2, or
// damaged) cannot be checked before HDF5 parses it, and HDF5 can crash on a damaged one
// (tests/fuzz/hdf5-findings): it is recognised by the names of its attributes among its raw bytes
// and refused without opening it. Result, smoothed and observation files have no such attributes.
void refuse_unsealed_rsmc_file(const std::string& path) {
  if (contains_any(path, {"particle_checksum", "trace_format_version"}))
    throw Error("rsmc info: '" + path +
                "' is an rsmc checkpoint or trace without a seal (written by an rsmc before "
                "checkpoint format 2 and trace format 2, or damaged); it cannot be checked, so it is not opened");
  if (contains_any(path, {"state_real_names"}))
    throw Error("rsmc info: '" + path +
                "' is an rsmc pmmh checkpoint without a seal (written by an rsmc before pmmh checkpoints were "
                "sealed, or damaged); it cannot be checked, so it is not opened");
}

// What the plain HDF5 file at `path` is (without reading its data). Non-HDF5 files are "unknown".
Kind hdf5_kind(const std::string& path) {
  refuse_unsealed_rsmc_file(path);
  H5E_auto2_t func = nullptr;
  void* data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Kind kind = Kind::unknown;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    if (H5Aexists(f, "smoothed_format_version") > 0)
      kind = Kind::smoothed;
    else if (H5Aexists(f, "chain_format_version") > 0)
      kind = Kind::chains;
    else if (H5Lexists(f, "ess", H5P_DEFAULT) > 0)
      kind = Kind::result;
    else if (H5Lexists(f, "observations", H5P_DEFAULT) > 0)
      kind = Kind::observations;
    H5Fclose(f);
  }
  H5Eset_auto2(H5E_DEFAULT, func, data);
  return kind;
}

// What the file at `path` is: checkpoints and traces by their seal (checked when read), the others
// by their HDF5 contents. A file that starts with neither is "unknown" (HDF5 does not see it).
Kind file_kind(const std::string& path) {
  switch (file_start(path)) {
    case FileStart::sealed_checkpoint:
      return Kind::checkpoint;
    case FileStart::sealed_trace:
      return Kind::trace;
    case FileStart::sealed_pmmh_checkpoint:
      return Kind::chains;
    case FileStart::plain_hdf5:
      return hdf5_kind(path);
    case FileStart::other:
      break;
  }
  return Kind::unknown;
}

std::string indent(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += "    " + line + "\n";
  return out;
}

// One line per series of kStepSeries: min / mean / max of real values, the total of counts.
template <class T>
std::string values_summary(const std::vector<T>& v) {
  std::ostringstream out;
  if (v.empty()) return "not recorded";
  if constexpr (std::is_floating_point_v<T>) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    out << "min " << *lo << ", mean " << std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size())
        << ", max " << *hi;
  } else {
    out << "total " << std::accumulate(v.begin(), v.end(), std::uint64_t{0});
  }
  return out.str();
}

std::string series_summary(const FilterResult& r) {
  if (r.steps == 0) return "  no steps filtered yet\n";
  std::ostringstream out;
  out << "  steps filtered:       " << r.steps << " (state dimension " << r.state_dim << ")\n"
      << "  per-step series (reals: min, mean, max over steps" << (r.state_dim > 1 ? " and components" : "")
      << "; counts: total):\n";
  for (const StepSeries& series : kStepSeries) {
    const std::string summary =
        std::visit([&](const auto& column) { return values_summary(stored_values(column, r)); }, series.column);
    char name[64];
    std::snprintf(name, sizeof name, "    %-26s", series.name);
    out << name << summary << "\n";
  }
  return out.str();
}

// The integer attributes of a result or chain file, one per line.
void print_integer_attributes(const ResultAttributes& a) {
  for (const auto& [key, value] : a.integers)
    std::printf("  %-21s %lld\n", (key + ":").c_str(), static_cast<long long>(value));
}

void print_result(const std::string& path) {
  const FilterResult r = read_result_file(path);
  const ResultAttributes a = read_result_attributes(path);
  std::printf("%s: rsmc filter result\n", path.c_str());
  print_integer_attributes(a);
  for (const auto& [key, value] : a.reals) std::printf("  %-21s %.6g\n", (key + ":").c_str(), value);
  std::printf("  log-likelihood:       %.10g\n%s", r.log_likelihood, series_summary(r).c_str());
  for (const auto& [key, value] : a.text) {
    if (value.find('\n') == std::string::npos)
      std::printf("  %-21s %s\n", (key + ":").c_str(), value.c_str());
    else
      std::printf("  %s:\n%s", key.c_str(), indent(value).c_str());
  }
}

void print_checkpoint(const std::string& path) {
  // Verified as a restart would: header, progress checksum, every particle against the checksum.
  const CheckpointContents c = read_checkpoint_header(MPI_COMM_SELF, path);
  read_checkpoint_block(MPI_COMM_SELF, path, c.info, 0, c.info.particles);
  std::printf("%s: rsmc checkpoint (format %lld, seal and checksums verified)\n", path.c_str(),
              static_cast<long long>(c.info.format_version));
  std::printf(
      "  model:                %s\n  step:                 %d\n  particles:            %llu\n"
      "  state dimension:      %d\n  log-likelihood so far: %.10g\n",
      c.info.model.c_str(), c.progress.step, static_cast<unsigned long long>(c.info.particles), c.info.state_dim,
      c.progress.log_likelihood.to_double());
  std::printf("%s  must match on restart:\n%s  configuration:\n%s", series_summary(c.progress.result).c_str(),
              indent(c.info.identity).c_str(), indent(c.info.configuration).c_str());
}

void print_observations(const std::string& path) {
  const Observations y = read_observations(path);
  int missing = 0;
  for (int t = 1; t <= y.steps; ++t) missing += y.missing(t) ? 1 : 0;
  std::printf(
      "%s: observations\n  steps:                %d\n  components:           %d\n"
      "  missing steps:        %d\n",
      path.c_str(), y.steps, y.dim, missing);
  // rsmc simulate records the model in an HDF5 data file (a CSV file has no place for it)
  const std::optional<std::string> model =
      data_format(path) == DataFormat::hdf5 ? read_observations_model(path) : std::nullopt;
  if (model) std::printf("  simulated from model: %s\n", model->c_str());
}

// A list of steps, shortened in the middle when long.
std::string step_list(const std::vector<std::int32_t>& steps) {
  std::string out;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    if (steps.size() > 12 && k == 6) {
      out += " ...";
      k = steps.size() - 4;
    }
    out += " " + std::to_string(steps[k]);
  }
  return steps.empty() ? " none" : out;
}

void print_trace(const std::string& path) {
  const TraceReader reader(path);
  const TraceHeader& h = reader.header();
  const double n = static_cast<double>(h.info.particles), d = h.info.state_dim;
  const double bytes = 8.0 * (d + 1.0) * n * static_cast<double>(h.cloud_steps.size()) +
                       8.0 * n * static_cast<double>(h.resampled_steps.size());
  std::printf("%s: rsmc trace (format %lld; smooth it with rsmc smooth)\n", path.c_str(),
              static_cast<long long>(kTraceFormatVersion));
  std::printf(
      "  model:                %s\n  particles:            %llu\n  state dimension:      %d\n"
      "  steps covered:        1..%d\n  trace every:          %d\n  p_invariant:          %d\n",
      h.info.model.c_str(), static_cast<unsigned long long>(h.info.particles), h.info.state_dim, h.info.steps,
      h.info.every, h.info.p_invariant ? 1 : 0);
  std::printf("  clouds (%zu):%s\n  resamplings (%zu):%s\n  particle data:        %.4g MB\n  configuration:\n%s",
              h.cloud_steps.size(), step_list(h.cloud_steps).c_str(), h.resampled_steps.size(),
              step_list(h.resampled_steps).c_str(), bytes / 1e6, indent(h.info.configuration).c_str());
}

void print_smoothed(const std::string& path) {
  const SmoothedFile s = read_smoothed_file(path);
  const SmoothedMoments& m = s.moments;
  std::printf(
      "%s: rsmc smoothed moments\n  model:                %s\n  from trace:           %s\n"
      "  method:               %s\n  particles:            %llu\n  state dimension:      %d\n"
      "  steps (%zu):%s\n  final step ESS:       %.1f\n",
      path.c_str(), s.model.c_str(), s.trace_path.c_str(), s.method.c_str(),
      static_cast<unsigned long long>(m.particles), m.state_dim, m.steps.size(), step_list(m.steps).c_str(),
      m.final_ess);
  if (!m.steps.empty())
    std::printf("  distinct ancestors:   %llu at step %d, %llu at step %d\n",
                static_cast<unsigned long long>(m.distinct_ancestors.front()), m.steps.front(),
                static_cast<unsigned long long>(m.distinct_ancestors.back()), m.steps.back());
  if (!m.path_ids.empty()) std::printf("  sampled paths:        %zu\n", m.path_ids.size());
}

void print_chains(const std::string& path) {
  const bool checkpoint = file_start(path) == FileStart::sealed_pmmh_checkpoint;
  const ChainOutput chains = read_chain_file(path);  // a checkpoint's seal is verified first
  const ResultAttributes a = read_result_attributes(path);
  std::printf(
      "%s: rsmc pmmh chains%s\n", path.c_str(),
      checkpoint ? " (a checkpoint of a stopped run, seal verified; continue it with rsmc pmmh --restart)" : "");
  print_integer_attributes(a);
  std::printf("%s", indent(chain_summary_text(chains)).c_str());
  for (const auto& [key, value] : a.text)
    if (key == "configuration") std::printf("  configuration:\n%s", indent(value).c_str());
}

}  // namespace

void InfoCommand::add_to(CLI::App& app) {
  app.add_option("file", file,
                 "A result file, a checkpoint, a trace, a smoothed file, the chains of rsmc pmmh, or an observations "
                 "file (.csv, .h5)")
      ->required();
}

int InfoCommand::run(MPI_Comm comm) const {
  run_on_root(comm, [&] {
    if (data_format(file) == DataFormat::csv) return print_observations(file);
    if (std::FILE* f = std::fopen(file.c_str(), "rb")) {
      std::fclose(f);
    } else {
      throw Error("rsmc info: cannot open '" + file + "'");
    }
    switch (file_kind(file)) {
      case Kind::checkpoint:
        return print_checkpoint(file);
      case Kind::result:
        return print_result(file);
      case Kind::observations:
        return print_observations(file);
      case Kind::trace:
        return print_trace(file);
      case Kind::smoothed:
        return print_smoothed(file);
      case Kind::chains:
        return print_chains(file);
      case Kind::unknown:
        break;
    }
    throw Error(
        "rsmc info: '" + file +
        "' is not an rsmc result file, checkpoint, trace, smoothed file, pmmh output or observations file (expected "
        "a sealed checkpoint or trace, HDF5 with /ess or /observations, or a .csv)");
  });
  return 0;
}

}  // namespace rsmc::drivers
