// See field_flags.hpp.
#include "drivers/field_flags.hpp"

#include "base/core/error.hpp"

namespace rsmc::drivers {
namespace {

struct FieldFlag {
  const char* field;
  const char* flag;
  bool is_switch;  // a flag without a value (true when given)
};

constexpr FieldFlag kFieldFlags[] = {
    {"model", "--model", false},
    {"particles", "--particles", false},
    {"steps", "--steps", false},
    {"seed", "--seed", false},
    {"ess_threshold", "--ess-threshold", false},
    {"scheme", "--resampling", false},
    {"resampler", "--resampler", false},
    {"local_sampler", "--local-sampler", false},
    {"invalid_likelihood", "--invalid-likelihood", false},
    {"balance_tolerance", "--balance-tolerance", false},
    {"rank_capacity", "--rank-capacity", false},
    {"data", "--data", false},
    {"output", "--output", false},
    {"overwrite", "--overwrite", true},
    {"checkpoint_every", "--checkpoint-every", false},
    {"checkpoint_dir", "--checkpoint-dir", false},
    {"keep_checkpoints", "--keep-checkpoints", false},
    {"restart", "--restart", false},
    {"trace", "--trace", false},
    {"trace_every", "--trace-every", false},
};

const FieldFlag* find(const std::string& field) {
  for (const FieldFlag& f : kFieldFlags)
    if (field == f.field) return &f;
  return nullptr;
}

}  // namespace

std::string flag_for(const std::string& field) {
  const FieldFlag* f = find(field);
  return f != nullptr ? f->flag : field;
}

std::string flag_reference(const std::string& field, const std::string& value) {
  const FieldFlag* f = find(field);
  if (f == nullptr) return FieldError::library_name(field, value);
  if (value.empty() || (f->is_switch && value == "true")) return f->flag;
  return std::string(f->flag) + " " + value;
}

std::string error_text(const std::exception& e) {
  if (const auto* field_error = dynamic_cast<const FieldError*>(&e)) return field_error->message(flag_reference);
  return e.what();
}

}  // namespace rsmc::drivers
