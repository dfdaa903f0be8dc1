// The per-step outputs of a filter run, declared once: one row per series, with its name in files,
// where the result file keeps it, whether it holds one value or d values (one per state component)
// per step, its meaning, and where it lives in a StepSummary (one step) and a FilterResult (all
// steps). The element type of the FilterResult vector (double, uint8, uint64) decides the file type
// (framework/io/hdf5_util.hpp, Hdf5Type).
//
// Everything that handles the series loops over kStepSeries: FilterResult::append (the filter
// loop), the result file (framework/io/result_file.cpp), the checkpoint's sizes, datasets and
// checksum (framework/io/checkpoint_file.cpp) and `rsmc info`. A new per-step output is a field
// in StepSummary (set where the step computes it), a field in FilterResult and a row here
// (docs/design/step-outputs.md walks through one).
#pragma once

#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

#include "framework/engine/filter_result.hpp"

namespace rsmc {

// Where the result file keeps a series: at the root, or in the group /resampling_traffic (the
// series that depend on the rank count and the layout: byte-for-byte comparisons of results across
// rank counts leave the group out). Checkpoints keep every series under /progress.
enum class SeriesPlace { root, resampling_traffic };

// Whether a FilterResult must hold the series. An optional one may be empty ("not recorded": the
// result file writes zeros) and may be absent from result files written before it existed (it then
// reads back empty).
enum class SeriesPresence { required, optional };

// The accessors of a series whose values have type T.
template <class T>
struct SeriesColumn {
  using Value = T;
  std::vector<T>& (*stored)(FilterResult&);                 // the T (or T x d) values of a result
  void (*append)(const StepSummary&, std::vector<T>& out);  // appends one step's 1 (or d) values
};

struct StepSeries {
  const char* name;  // dataset name in result files (under `place`) and checkpoints (under /progress)
  SeriesPlace place;
  SeriesPresence presence;
  bool per_component;  // d values per step (a T x d dataset) rather than one (T)
  const char* doc;
  std::variant<SeriesColumn<double>, SeriesColumn<std::uint8_t>, SeriesColumn<std::uint64_t>> column;
};

namespace step_series_detail {

template <class M>
struct MemberOf;
template <class C, class T>
struct MemberOf<T C::*> {
  using Class = C;
  using Type = T;
};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// The stored vector: a member of FilterResult or of FilterResult::Traffic.
template <auto Stored>
auto& stored_in(FilterResult& r) {
  if constexpr (std::is_same_v<typename MemberOf<decltype(Stored)>::Class, FilterResult::Traffic>)
    return r.traffic.*Stored;
  else
    return r.*Stored;
}

// One step's value(s): a member of StepSummary or of its ResampleStats.
template <auto Value>
const auto& value_in(const StepSummary& s) {
  if constexpr (std::is_same_v<typename MemberOf<decltype(Value)>::Class, ResampleStats>)
    return s.resample_stats.*Value;
  else
    return s.*Value;
}

template <auto Value, class T>
void append_value(const StepSummary& s, std::vector<T>& out) {
  const auto& v = value_in<Value>(s);
  if constexpr (IsVector<std::decay_t<decltype(v)>>::value)
    out.insert(out.end(), v.begin(), v.end());
  else
    out.push_back(static_cast<T>(v));
}

// A row from the two members: where all steps are stored, and where one step's value is.
template <auto Stored, auto Value>
constexpr StepSeries series(const char* name, SeriesPlace place, SeriesPresence presence, const char* doc) {
  using T = typename MemberOf<decltype(Stored)>::Type::value_type;
  constexpr bool per_component = IsVector<typename MemberOf<decltype(Value)>::Type>::value;
  return {name, place, presence, per_component, doc, SeriesColumn<T>{&stored_in<Stored>, &append_value<Value, T>}};
}

}  // namespace step_series_detail

// The series, in the order files list them.
inline constexpr StepSeries kStepSeries[] = {
    step_series_detail::series<&FilterResult::ess, &StepSummary::ess>(
        "ess", SeriesPlace::root, SeriesPresence::required, "effective sample size after weighting"),
    step_series_detail::series<&FilterResult::log_likelihood_increment, &StepSummary::log_likelihood_increment>(
        "log_likelihood_increment", SeriesPlace::root, SeriesPresence::required,
        "log p(y_t | y_1..t-1) estimate (0 when y_t is missing)"),
    step_series_detail::series<&FilterResult::mean, &StepSummary::mean>(
        "filtered_mean", SeriesPlace::root, SeriesPresence::required, "filtered mean of each state component"),
    step_series_detail::series<&FilterResult::variance, &StepSummary::variance>(
        "filtered_variance", SeriesPlace::root, SeriesPresence::required, "filtered variance of each state component"),
    step_series_detail::series<&FilterResult::resampled, &StepSummary::resampled>(
        "resampled", SeriesPlace::root, SeriesPresence::required, "1 if the step ended with a resampling"),
    step_series_detail::series<&FilterResult::invalid_likelihoods, &StepSummary::invalid_likelihoods>(
        "invalid_likelihoods", SeriesPlace::root, SeriesPresence::optional,
        "particles given weight zero for a NaN / +inf log-likelihood (--invalid-likelihood zero-weight)"),
    step_series_detail::series<&FilterResult::Traffic::particles_moved, &ResampleStats::particles_moved>(
        "particles_moved", SeriesPlace::resampling_traffic, SeriesPresence::optional,
        "offspring whose state was sent to another rank"),
    step_series_detail::series<&FilterResult::Traffic::bytes_moved, &ResampleStats::bytes_moved>(
        "bytes_moved", SeriesPlace::resampling_traffic, SeriesPresence::optional,
        "particle-state bytes sent between ranks"),
    step_series_detail::series<&FilterResult::Traffic::messages, &ResampleStats::messages>(
        "messages", SeriesPlace::resampling_traffic, SeriesPresence::optional,
        "point-to-point messages carrying particles"),
    step_series_detail::series<&FilterResult::Traffic::max_partners, &ResampleStats::max_partners>(
        "max_partners", SeriesPlace::resampling_traffic, SeriesPresence::optional,
        "most distinct ranks one rank exchanged particles with"),
    step_series_detail::series<&FilterResult::Traffic::minimum_moves, &ResampleStats::minimum_moves>(
        "minimum_moves", SeriesPlace::resampling_traffic, SeriesPresence::optional,
        "lower bound of the moves any rebalancing needs"),
    step_series_detail::series<&FilterResult::Traffic::imbalance, &StepSummary::imbalance>(
        "imbalance", SeriesPlace::resampling_traffic, SeriesPresence::optional,
        "max over ranks of particles held / capacity-weighted target, after the step's rebalance"),
};

// The values of `series` in `r` (read-only).
template <class T>
const std::vector<T>& stored_values(const SeriesColumn<T>& column, const FilterResult& r) {
  return column.stored(const_cast<FilterResult&>(r));  // the accessor only names a member
}

// The element type of a column (for std::visit over StepSeries::column).
template <class Column>
using ValueOf = typename std::decay_t<Column>::Value;

// How many values `series` holds in `r`.
inline std::size_t stored_size(const StepSeries& series, const FilterResult& r) {
  return std::visit([&](const auto& column) { return stored_values(column, r).size(); }, series.column);
}

// How many values `series` holds for `steps` steps of a d-dimensional state.
inline std::size_t series_length(const StepSeries& series, std::size_t steps, std::size_t state_dim) {
  return series.per_component ? steps * state_dim : steps;
}

inline void FilterResult::append(const StepSummary& step) {
  for (const StepSeries& series : kStepSeries)
    std::visit([&](const auto& column) { column.append(step, column.stored(*this)); }, series.column);
  ++steps;
}

}  // namespace rsmc
