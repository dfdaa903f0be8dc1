// See field_flags.hpp.
#include "drivers/field_flags.hpp"

#include <cstdio>
#include <map>

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
    {"checkpoint", "--checkpoint", false},
    {"trace", "--trace", false},
    {"trace_every", "--trace-every", false},
};

const FieldFlag* find(const std::string& field) {
  for (const FieldFlag& f : kFieldFlags)
    if (field == f.field) return &f;
  return nullptr;
}

std::map<std::string, std::string>& value_origins() {
  static std::map<std::string, std::string> origins;
  return origins;
}

// The run-file key of a flag: "--burn-in" -> "burn_in".
std::string key_of(const std::string& flag) {
  std::string key = flag.rfind("--", 0) == 0 ? flag.substr(2) : flag;
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

// Where a run file set the value of `key` ("run.toml:7: "), or nothing.
const std::string* origin_of(const std::string& key) {
  const auto it = value_origins().find(key);
  return it == value_origins().end() ? nullptr : &it->second;
}

}  // namespace

void record_value_origin(const std::string& key, const std::string& where) { value_origins()[key] = where; }

void clear_value_origins() { value_origins().clear(); }

std::string input_name(const std::string& key) {
  if (const std::string* where = origin_of(key)) return *where + key;
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

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
  const auto* field_error = dynamic_cast<const FieldError*>(&e);
  if (field_error == nullptr) return e.what();
  // A field a run file set is named as the file's key, and the message starts with the file and
  // line of the first such field ("run.toml:3: seed: 72057594037927936 is too large; ...").
  std::string where;
  const std::string message = field_error->message([&where](const std::string& field, const std::string& value) {
    const FieldFlag* f = find(field);
    const std::string* origin = f != nullptr ? origin_of(key_of(f->flag)) : nullptr;
    if (origin == nullptr) return flag_reference(field, value);
    if (where.empty()) where = *origin;
    const std::string key = key_of(f->flag);
    return value.empty() ? key : key + " = " + value;
  });
  return where + message;
}

namespace {

// The length of the well-formed UTF-8 sequence of 2 to 4 bytes at text[i], or 0 (shortest forms,
// no surrogates, at most U+10FFFF).
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  const std::size_t n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  const unsigned char second = byte(i + 1);
  if ((b == 0xE0 && second < 0xA0) || (b == 0xED && second > 0x9F) || (b == 0xF0 && second < 0x90) ||
      (b == 0xF4 && second > 0x8F))
    return 0;
  return n;
}

// Escapes what a terminal line cannot show as is.
std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += text[i++];
      continue;
    }
    if (const std::size_t n = c >= 0x80 ? utf8_sequence(text, i) : 0) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    } else {
      char code[8];
      std::snprintf(code, sizeof code, "\\x%02x", static_cast<unsigned>(c));
      out += code;
    }
    ++i;
  }
  return out;
}

// The index at or before `i` that does not split a UTF-8 sequence of `text`.
std::size_t sequence_start(const std::string& text, std::size_t i) {
  while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
  return i;
}

}  // namespace

std::string one_line(const std::string& message) {
  constexpr std::size_t kHead = 1400, kTail = 500;
  const std::string text = printable(message);
  if (text.size() <= kHead + kTail + 100) return text;
  const std::size_t head = sequence_start(text, kHead), tail = sequence_start(text, text.size() - kTail);
  return text.substr(0, head) + " [... " + std::to_string(tail - head) + " bytes left out ...] " + text.substr(tail);
}

}  // namespace rsmc::drivers
