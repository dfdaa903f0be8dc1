#include "framework/io/result_file.hpp"

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/engine/step_series.hpp"
#include "framework/io/hdf5_util.hpp"

namespace rsmc {
namespace {

using namespace io_detail;  // Hid, Hdf5Type, SilenceHdf5Errors, link_exists, open_hdf5_read_only, write_dataset, ...

// The group holding FilterResult::traffic, and its datasets in the order they are written.
constexpr const char* kTrafficGroup = "resampling_traffic";
// rsmc 0.1 created the scalar /log_likelihood right after this series; keeping its place keeps
// result files byte-identical to those of earlier versions.
constexpr std::string_view kLogLikelihoodAfter = "resampled";
constexpr const char* kTrafficNote =
    "communication and load balance of each resampling; depends on the number of ranks and the layout, unlike "
    "every other dataset";

// The path of a series in a result file.
std::string series_path(const StepSeries& series) {
  return series.place == SeriesPlace::resampling_traffic ? std::string(kTrafficGroup) + "/" + series.name
                                                         : std::string(series.name);
}

// ---- the per-step series (framework/engine/step_series.hpp) ----

// Refuses a result whose series do not hold T (or T x d) values; an optional series may be empty.
void check_series_sizes(const FilterResult& r, const std::string& what) {
  const auto T = static_cast<std::size_t>(r.steps), d = static_cast<std::size_t>(r.state_dim);
  for (const StepSeries& series : kStepSeries) {
    const std::size_t size = stored_size(series, r);
    const std::size_t expected = series_length(series, T, d);
    if (size != expected && !(size == 0 && series.presence == SeriesPresence::optional))
      throw Error(what + ": filter result series '" + series.name + "' holds " + std::to_string(size) +
                  " values; expected " + std::to_string(expected));
  }
}

// Writes the series of `place` into `location`, in table order; an empty (optional) one as zeros.
// `after_each(series)` runs after each (the root's scalar /log_likelihood has its place between them).
template <class AfterEach>
void write_series(hid_t location, SeriesPlace place, const FilterResult& r, const std::string& fail,
                  const AfterEach& after_each) {
  const auto T = static_cast<hsize_t>(r.steps), d = static_cast<hsize_t>(r.state_dim);
  for (const StepSeries& series : kStepSeries) {
    if (series.place != place) continue;
    std::visit(
        [&](const auto& column) {
          using Value = ValueOf<decltype(column)>;
          const std::vector<Value>& stored = stored_values(column, r);
          const std::vector<Value> zeros(stored.empty() ? series_length(series, T, d) : 0, Value{0});
          write_dataset(location, series.name, Hdf5Type<Value>::file(), Hdf5Type<Value>::memory(),
                        series.per_component ? std::vector<hsize_t>{T, d} : std::vector<hsize_t>{T},
                        (stored.empty() ? zeros : stored).data(), fail);
        },
        series.column);
    after_each(series);
  }
}

// Reads every series; T from the first (/ess), d from the first per-component one (/filtered_mean).
// An optional series absent from the file stays empty.
void read_series(hid_t f, const std::string& what, FilterResult& r) {
  const StepSeries* steps_from = nullptr;
  const StepSeries* dim_from = nullptr;
  hsize_t T = 0, d = 0;
  for (const StepSeries& series : kStepSeries) {
    const std::string path = series_path(series);
    if (series.presence == SeriesPresence::optional && !link_exists(f, path)) continue;
    const std::vector<hsize_t> dims = std::visit(
        [&](const auto& column) { return read_dataset(f, what, path, series.per_component ? 2 : 1, column.stored(r)); },
        series.column);
    const std::string ds = what + ", dataset '/" + path + "': has shape " + shape_text(dims) + "; expected ";
    if (steps_from == nullptr) {
      if (dims[0] < 1) throw Error(ds + "at least one step");
      steps_from = &series;
      T = dims[0];
    }
    if (series.per_component && dim_from == nullptr) {
      if (dims[0] != T || dims[1] < 1)
        throw Error(ds + "(" + std::to_string(T) + " x d) with d >= 1 to match '/" + steps_from->name + "'");
      dim_from = &series;
      d = dims[1];
    }
    const std::vector<hsize_t> expected = series.per_component ? std::vector<hsize_t>{T, d} : std::vector<hsize_t>{T};
    if (dims != expected)
      throw Error(ds + shape_text(expected) + " to match '/" + steps_from->name + "'" +
                  (series.per_component ? std::string(" and '/") + dim_from->name + "'" : std::string()));
  }
  r.steps = static_cast<int>(T);
  r.state_dim = static_cast<int>(d);
}

struct AttributeReader {
  ResultAttributes* out;
  bool failed = false;
};

herr_t collect_attribute(hid_t location, const char* name, const H5A_info_t*, void* op_data) {
  auto* reader = static_cast<AttributeReader*>(op_data);
  try {
    Hid attr(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) return -1;
    Hid space(H5Aget_space(attr.get()), H5Sclose);
    Hid type(H5Aget_type(attr.get()), H5Tclose);
    if (!space.valid() || !type.valid()) return -1;
    if (H5Sget_simple_extent_type(space.get()) != H5S_SCALAR) return 0;
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls == H5T_INTEGER) {
      std::int64_t v = 0;
      if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0) return -1;
      reader->out->integers.emplace_back(name, v);
    } else if (cls == H5T_FLOAT) {
      double v = 0.0;
      if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) < 0) return -1;
      reader->out->reals.emplace_back(name, v);
    } else if (cls == H5T_STRING) {
      if (H5Tis_variable_str(type.get()) > 0) {
        Hid mem(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(mem.get(), H5T_VARIABLE);
        H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
        char* s = nullptr;
        if (H5Aread(attr.get(), mem.get(), &s) < 0) return -1;
        reader->out->text.emplace_back(name, s ? s : "");
        H5free_memory(s);
      } else {
        const std::size_t size = H5Tget_size(type.get());
        std::vector<char> buf(size + 1, '\0');
        if (H5Aread(attr.get(), type.get(), buf.data()) < 0) return -1;
        reader->out->text.emplace_back(name, std::string(buf.data()));
      }
    }
    return 0;
  } catch (...) {
    reader->failed = true;
    return -1;
  }
}

}  // namespace

void write_result_file(const std::string& path, const FilterResult& r, const ResultAttributes& attributes,
                       bool overwrite) {
  const std::string what = "output file '" + path + "'";
  if (r.steps < 1 || r.state_dim < 1)
    throw Error(what + ": filter result has " + std::to_string(r.steps) + " steps and state dimension " +
                std::to_string(r.state_dim) + "; expected at least 1 of each");
  check_series_sizes(r, what);
  if (!r.true_state.empty() && r.true_state.size() != static_cast<std::size_t>(r.steps) * r.state_dim)
    throw Error(what + ": filter result field 'true_state' holds " + std::to_string(r.true_state.size()) +
                " values; expected " + std::to_string(static_cast<std::size_t>(r.steps) * r.state_dim));
  std::set<std::string> names;
  auto check_name = [&](const std::string& name) {
    if (name.empty()) throw Error(what + ": an attribute has an empty name; expected a non-empty name");
    if (!names.insert(name).second)
      throw Error(what + ": attribute '" + name + "' is given twice; expected distinct attribute names");
  };
  for (const auto& a : attributes.text) {
    check_name(a.first);
    if (a.second.find('\0') != std::string::npos)
      throw Error(what + ": attribute '" + a.first + "' contains a NUL character; expected text");
  }
  for (const auto& a : attributes.integers) check_name(a.first);
  for (const auto& a : attributes.reals) check_name(a.first);

  SilenceHdf5Errors silence;
  write_atomically(path, overwrite, [&](const std::string& tmp) {
    const std::string fail = what + ": cannot write the temporary file '" + tmp + "'";
    Hid file(create_output_file(tmp, fail), H5Fclose);

    const hsize_t steps = static_cast<hsize_t>(r.steps);
    const hsize_t dim = static_cast<hsize_t>(r.state_dim);
    const hid_t f = file.get();
    write_series(f, SeriesPlace::root, r, fail, [&](const StepSeries& series) {
      if (series.name == kLogLikelihoodAfter)
        write_dataset(f, "log_likelihood", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &r.log_likelihood, fail);
    });
    if (!r.true_state.empty())
      write_dataset(f, "true_state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {steps, dim}, r.true_state.data(), fail);

    Hid text_type(create_text_type(fail), H5Tclose);

    {  // /resampling_traffic: the one part that depends on the rank count
      Hid gcpl(create_untimed_plist(H5P_GROUP_CREATE), H5Pclose);
      if (!gcpl.valid()) throw Error(fail + " (cannot create group '" + kTrafficGroup + "')");
      Hid group(H5Gcreate2(f, kTrafficGroup, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose);
      if (!group.valid()) throw Error(fail + " (cannot create group '" + kTrafficGroup + "')");
      write_series(group.get(), SeriesPlace::resampling_traffic, r, fail + " (group '" + kTrafficGroup + "')",
                   [](const StepSeries&) {});
      const char* note = kTrafficNote;
      write_attribute(group.get(), "note", text_type.get(), text_type.get(), &note,
                      fail + " (group '" + kTrafficGroup + "')");
      if (!group.close()) throw Error(fail + " (cannot close group '" + kTrafficGroup + "')");
    }
    write_attributes(f, attributes, fail);

    save_output_file(file, tmp, fail);
  });
}

FilterResult read_result_file(const std::string& path) {
  SilenceHdf5Errors silence;
  const std::string what = "result file '" + path + "'";
  Hid file(open_hdf5_read_only(path, what), H5Fclose);
  const hid_t f = file.get();

  FilterResult r;
  read_series(f, what, r);
  std::vector<double> ll;
  read_dataset(f, what, "log_likelihood", 0, ll);
  r.log_likelihood = ll.at(0);
  // /true_state only when the data were simulated.
  if (link_exists(f, "true_state")) {
    const std::vector<hsize_t> dims = read_dataset(f, what, "true_state", 2, r.true_state);
    const std::vector<hsize_t> expected{static_cast<hsize_t>(r.steps), static_cast<hsize_t>(r.state_dim)};
    if (dims != expected)
      throw Error(what + ", dataset '/true_state': has shape " + shape_text(dims) + "; expected " +
                  shape_text(expected) + " to match '/filtered_mean'");
  }
  return r;
}

ResultAttributes read_result_attributes(const std::string& path) {
  SilenceHdf5Errors silence;
  const std::string what = "result file '" + path + "'";
  Hid file(open_hdf5_read_only(path, what), H5Fclose);
  ResultAttributes out;
  AttributeReader reader{&out};
  hsize_t index = 0;
  herr_t rc = H5Aiterate2(file.get(), H5_INDEX_CRT_ORDER, H5_ITER_INC, &index, collect_attribute, &reader);
  if (rc < 0 && !reader.failed && out.text.empty() && out.integers.empty() && out.reals.empty()) {
    index = 0;  // the file does not track creation order: list by name
    rc = H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_INC, &index, collect_attribute, &reader);
  }
  if (rc < 0) throw Error(what + ": cannot read the attributes of the root group (damaged file?)");
  return out;
}

}  // namespace rsmc
