// Run files are parsed by toml++ (Debian: libtomlplusplus-dev), used header-only in this translation
// unit alone: no other file includes it, so the rest of rsmc compiles without it and an installed
// rsmc's users never need it. This file turns toml++'s tree into rsmc's flat TomlDocument (toml.hpp)
// and its errors into rsmc's "FILE:LINE:COLUMN: what" messages.
#include "framework/config/toml.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "base/core/error.hpp"

#define TOML_HEADER_ONLY 1        // compiled here, not linked from libtomlplusplus
#define TOML_ENABLE_FORMATTERS 0  // rsmc never writes TOML
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/impl/preprocessor.h>
// toml++ 3.3 states some preconditions of its parser as TOML_ASSERT_ASSUME: an assert() in debug
// builds and, with clang under NDEBUG, __builtin_assume. One of them is reachable from malformed
// input ('[' and a line break, "[\nk = 1": the table-header parser calls parse_key on the line
// break; fixed upstream after 3.3, marzer/tomlplusplus pull request 301), where an abort or a false
// assumption (undefined behaviour) would replace the parse error. Here both are no-ops, as in a GCC
// release build, so the parser's own check reports the input as an error in every build.
#undef TOML_ASSERT_ASSUME
#define TOML_ASSERT_ASSUME(expr) static_assert(true)
#include <toml++/toml.h>

namespace rsmc::config {

const char* TomlValue::type_name() const {
  switch (type) {
    case Type::string:
      return "a string";
    case Type::integer:
      return "an integer";
    case Type::floating:
      return "a number";
    case Type::boolean:
      return "a boolean";
    case Type::array:
      return "an array";
  }
  return "a value";
}

std::string TomlDocument::where(const TomlValue& v) const { return source + ":" + std::to_string(v.line) + ": "; }

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// The text of the file by line, to give each value its source text ("1_500", "2.5e-3", "[1, 2]") for
// messages: toml++ keeps values, rsmc's messages quote what the user wrote.
class SourceLines {
 public:
  explicit SourceLines(std::string_view text) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      lines_.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }

  // The text of a region on one line ("" for one spanning lines). toml++ counts lines from 1 and
  // columns in code points from 1; the end is one past the value.
  std::string_view on_one_line(const toml::source_region& region) const {
    if (region.begin.line != region.end.line || region.begin.line == 0 || region.begin.line > lines_.size()) return {};
    const std::string_view line = lines_[region.begin.line - 1];
    const std::size_t from = byte_offset(line, region.begin.column), to = byte_offset(line, region.end.column);
    return from < to ? line.substr(from, to - from) : std::string_view();
  }

 private:
  // The byte offset of the 1-based code point `column` in a UTF-8 line.
  static std::size_t byte_offset(std::string_view line, toml::source_index column) {
    std::size_t at = 0;
    for (toml::source_index c = 1; c < column && at < line.size(); ++c) {
      ++at;
      while (at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) ++at;  // continuation
    }
    return at;
  }

  std::vector<std::string_view> lines_;
};

// A guard against a toml++ bug. toml++ 3.3 (and its releases up to mid-2026: marzer/tomlplusplus
// issues 190 and 295) reaches an "unreachable" point, undefined behaviour, when it asks whether some
// non-ASCII code points (e.g. U+00A1..U+0499) are whitespace. It asks that of characters outside
// strings and comments, where TOML allows no non-ASCII character anyway, and inside basic strings of
// the character after a backslash and of the first one after a line-ending backslash. This scan
// refuses those characters with rsmc's message before toml++ sees them. It follows strings, comments,
// keys, values, arrays and inline tables only as far as needed to know where toml++ reads a string: a
// quote inside a bare value (1"x, 1["x") is no string to toml++, which reads on to the next separator.
// Where it cannot be sure, it counts a character as outside a string: it may refuse input that toml++
// refuses anyway, never let through one that reaches the bug.
class NonAsciiGuard {
 public:
  NonAsciiGuard(std::string_view text, const std::string& source) : s_(text), source_(source) {}

  void check() {
    while (at_ < s_.size()) {
      const char c = s_[at_];
      if (c == '#') {  // a comment, or an error in toml++ before anything after it is read
        while (at_ < s_.size() && s_[at_] != '\n') ++at_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++at_;
      } else if (c == '\n') {
        step();
        previous_ = '\n';
        if (nesting_.empty()) in_key_ = true;  // a new line: a key or a table header comes next
      } else if ((c == '"' || c == '\'') && string_may_start()) {
        string(c);
        previous_ = c;
      } else if (value_may_start() && !structural(c)) {
        bare_value();
      } else {
        refuse_if_non_ascii("outside a string or comment (TOML allows none there)");
        structure(c);
        previous_ = c;
        step();
      }
    }
  }

 private:
  static bool structural(char c) {
    return c == '"' || c == '\'' || c == '[' || c == ']' || c == '{' || c == '}' || c == ',';
  }
  // toml++ starts a string only where a key or a value starts: at the start of a line, after '=',
  // '[', ',' or '{', and after a '.' between the parts of a key.
  bool string_may_start() const {
    return previous_ == '\n' || previous_ == '=' || previous_ == '[' || previous_ == ',' || previous_ == '{' ||
           (previous_ == '.' && in_key_);
  }
  // Where a value starts: after '=', and in an array after '[', ',' or a line break.
  bool value_may_start() const {
    const bool in_array = !nesting_.empty() && nesting_.back() == '[';
    return !in_key_ && (previous_ == '=' || (in_array && (previous_ == '[' || previous_ == ',' || previous_ == '\n')));
  }
  // A number, boolean, date or anything else unquoted: toml++ reads it to the next separator (white
  // space, ',', ']', '}' or '#'), asking of every character whether it is one, quotes included.
  void bare_value() {
    while (at_ < s_.size()) {
      const char c = s_[at_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#') break;
      refuse_if_non_ascii("outside a string or comment (TOML allows none there)");
      step();
    }
    previous_ = 'v';  // a value: no string starts right after it
  }
  // Follows arrays, inline tables and the key / value parts of a line, for string_may_start.
  void structure(char c) {
    const char open = nesting_.empty() ? '\0' : nesting_.back();
    if (c == '=') {
      in_key_ = false;
    } else if (c == '[' && !(in_key_ && nesting_.empty())) {  // a value's array (not a table header)
      nesting_.push_back('[');
    } else if (c == '{') {
      nesting_.push_back('{');
      in_key_ = true;
    } else if (c == ',' && open == '{') {
      in_key_ = true;
    } else if ((c == ']' && open == '[') || (c == '}' && open == '{')) {
      nesting_.pop_back();
      in_key_ = false;
    }
  }

  bool non_ascii() const { return at_ < s_.size() && (static_cast<unsigned char>(s_[at_]) & 0x80) != 0; }
  void refuse_if_non_ascii(const char* where) const {
    if (!non_ascii()) return;
    std::size_t column = 1;  // in code points, as toml++ counts
    for (std::size_t i = line_start_; i < at_; ++i) column += (static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80;
    throw Error(source_ + ":" + std::to_string(line_) + ":" + std::to_string(column) + ": a non-ASCII character " +
                where);
  }
  void step() {
    if (s_[at_] == '\n') {
      line_start_ = at_ + 1;
      ++line_;
    }
    ++at_;
  }
  bool ahead(std::string_view what) const { return s_.substr(at_, what.size()) == what; }

  // A string from its opening quote to its closing one (or to the end of its line, where toml++ stops
  // with an error anyway).
  void string(char quote) {
    const std::string triple(3, quote);
    const bool multi_line = ahead(triple);
    at_ += multi_line ? 3 : 1;
    while (at_ < s_.size()) {
      const char c = s_[at_];
      if (!multi_line && c == '\n') return;
      if (multi_line ? ahead(triple) : c == quote) {
        at_ += multi_line ? 3 : 1;
        for (int extra = 0; multi_line && extra < 2 && at_ < s_.size() && s_[at_] == quote; ++extra) ++at_;
        return;
      }
      if (c == '\\' && quote == '"') {
        ++at_;
        refuse_if_non_ascii("after a backslash in a string");
        if (multi_line && line_ending_backslash()) continue;
      }
      if (at_ < s_.size()) step();
    }
  }
  // After a backslash in a """ string: if only spaces or tabs follow it on its line, skips them, the
  // line break and the white space after it, as toml++ does, and refuses a non-ASCII character there.
  bool line_ending_backslash() {
    std::size_t i = at_;
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t')) ++i;
    if (!(i < s_.size() && (s_[i] == '\n' || s_[i] == '\r'))) return false;
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) step();
    refuse_if_non_ascii("right after a line-ending backslash; write it as an escape (\\uXXXX)");
    return true;
  }

  std::string_view s_;
  const std::string& source_;
  std::size_t at_ = 0, line_start_ = 0;
  int line_ = 1;
  char previous_ = '\n';  // the last character that is not white space or in a comment
  bool in_key_ = true;    // in the key part of a line, a table header or an inline table's key
  std::string nesting_;   // the open '[' (arrays) and '{' (inline tables) of the current value
};

// Flattens toml++'s tree into full dotted keys ("parameters.phi" -> value).
class Flattener {
 public:
  Flattener(const SourceLines& lines, TomlDocument& doc) : lines_(lines), doc_(doc) {}

  void table(const toml::table& t, const std::string& prefix) {
    for (auto&& [key, node] : t) {
      const std::string full = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
      check_key(key, full);
      if (const toml::table* sub = node.as_table())
        table(*sub, full);
      else
        doc_.values.emplace(full, value(node, full));
    }
  }

 private:
  [[noreturn]] void fail(const toml::source_region& at, const std::string& what) const {
    throw Error(doc_.source + ":" + std::to_string(at.begin.line) + ": " + what);
  }

  // A key part with a '.' would read as two parts once the keys are flattened.
  void check_key(const toml::key& key, const std::string& full) const {
    if (key.str().empty() || key.str().find('.') != std::string_view::npos)
      fail(key.source(), "'" + full + "': a key must not be empty or contain '.' (write dotted keys unquoted)");
  }

  TomlValue value(const toml::node& node, const std::string& key) const {
    TomlValue v;
    v.line = static_cast<int>(node.source().begin.line);
    v.text = std::string(lines_.on_one_line(node.source()));
    if (const auto* s = node.as_string()) {
      v.type = TomlValue::Type::string;
      v.text = s->get();
    } else if (const auto* i = node.as_integer()) {
      v.type = TomlValue::Type::integer;
      v.integer = i->get();
      v.floating = static_cast<double>(v.integer);
    } else if (const auto* f = node.as_floating_point()) {
      v.type = TomlValue::Type::floating;
      v.floating = f->get();
    } else if (const auto* b = node.as_boolean()) {
      v.type = TomlValue::Type::boolean;
      v.boolean = b->get();
    } else if (const auto* a = node.as_array()) {
      v.type = TomlValue::Type::array;
      if (v.text.empty()) v.text = "[...]";  // an array over several lines
      for (const toml::node& element : *a) {
        if (element.is_table()) fail(element.source(), "'" + key + "': arrays of tables are not supported");
        v.elements.push_back(value(element, key));
      }
    } else {
      fail(node.source(), "'" + key + "': dates and times are not supported");
    }
    return v;
  }

  const SourceLines& lines_;
  TomlDocument& doc_;
};

}  // namespace

TomlDocument parse_toml(const std::string& text, const std::string& source) {
  std::string_view body = text;
  if (body.substr(0, kByteOrderMark.size()) == kByteOrderMark) body.remove_prefix(kByteOrderMark.size());
  NonAsciiGuard(body, source).check();
  TomlDocument doc;
  doc.source = source;
  toml::table root;
  try {
    root = toml::parse(body, source);
  } catch (const toml::parse_error& e) {
    const toml::source_position at = e.source().begin;
    throw Error(source + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
                std::string(e.description()));
  }
  const SourceLines lines(body);
  Flattener(lines, doc).table(root, "");
  return doc;
}

TomlDocument read_toml_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("--config: cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw Error("--config: cannot read '" + path + "'");
  return parse_toml(text.str(), path);
}

}  // namespace rsmc::config
