#include "framework/config/toml.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/core/error.hpp"

namespace rsmc::config {

const char* TomlValue::type_name() const {
  switch (type) {
    case Type::string: return "a string";
    case Type::integer: return "an integer";
    case Type::floating: return "a number";
    case Type::boolean: return "a boolean";
    case Type::array: return "an array";
  }
  return "a value";
}

std::string TomlDocument::where(const TomlValue& v) const { return source + ":" + std::to_string(v.line) + ": "; }

namespace {

bool is_bare(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// A cursor over one line, with the error context.
class Line {
 public:
  Line(const std::string& text, const std::string& source, int number) : s_(text), source_(source), number_(number) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(source_ + ":" + std::to_string(number_) + ": " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool at_end_or_comment() {
    skip_space();
    return pos_ >= s_.size() || s_[pos_] == '#';
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  // key or dotted.key (bare parts only).
  std::string key() {
    std::string k;
    while (true) {
      skip_space();
      const std::size_t start = pos_;
      while (pos_ < s_.size() && is_bare(s_[pos_])) ++pos_;
      if (pos_ == start) {
        if (peek() == '"' || peek() == '\'') fail("quoted keys are not supported; use bare keys (letters, digits, _ and -)");
        fail(k.empty() ? "expected a key" : "expected a key after '.'");
      }
      k += s_.substr(start, pos_ - start);
      skip_space();
      if (!consume('.')) return k;
      k += '.';
    }
  }

  TomlValue value(int depth = 0) {
    skip_space();
    TomlValue v;
    v.line = number_;
    const char c = peek();
    if (c == '"') return basic_string(v);
    if (c == '\'') return literal_string(v);
    if (c == '[') return array(v, depth);
    if (c == '{') fail("inline tables are not supported; use a [table] header");
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ']' && s_[pos_] != '#' && s_[pos_] != ' ' &&
           s_[pos_] != '\t')
      ++pos_;
    v.text = s_.substr(start, pos_ - start);
    if (v.text.empty()) fail("expected a value");
    if (v.text == "true" || v.text == "false") {
      v.type = TomlValue::Type::boolean;
      v.boolean = v.text == "true";
      return v;
    }
    return number(v);
  }

 private:
  TomlValue& basic_string(TomlValue& v) {
    ++pos_;
    if (s_.compare(pos_, 2, "\"\"") == 0) fail("multi-line strings are not supported");
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        v.text += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': v.text += '"'; break;
        case '\\': v.text += '\\'; break;
        case 'n': v.text += '\n'; break;
        case 't': v.text += '\t'; break;
        case 'r': v.text += '\r'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) fail("bad \\u escape in a string");
          char* end = nullptr;
          const std::string hex = s_.substr(pos_, 4);
          const unsigned long cp = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) fail("bad \\u escape in a string");
          pos_ += 4;
          if (cp < 0x80) {
            v.text += static_cast<char>(cp);
          } else if (cp < 0x800) {
            v.text += static_cast<char>(0xC0 | (cp >> 6));
            v.text += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            v.text += static_cast<char>(0xE0 | (cp >> 12));
            v.text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            v.text += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: fail(std::string("unknown escape \\") + e + " in a string");
      }
    }
    v.type = TomlValue::Type::string;
    return v;
  }

  TomlValue& literal_string(TomlValue& v) {
    ++pos_;
    if (s_.compare(pos_, 2, "''") == 0) fail("multi-line strings are not supported");
    const std::size_t end = s_.find('\'', pos_);
    if (end == std::string::npos) fail("unterminated string");
    v.text = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    v.type = TomlValue::Type::string;
    return v;
  }

  TomlValue& array(TomlValue& v, int depth) {
    if (depth > 8) fail("arrays nested too deeply");
    ++pos_;
    v.type = TomlValue::Type::array;
    while (true) {
      skip_space();
      if (consume(']')) break;
      if (pos_ >= s_.size() || peek() == '#') fail("multi-line arrays are not supported; close the array on its line");
      v.elements.push_back(value(depth + 1));
      skip_space();
      if (consume(']')) break;
      if (pos_ >= s_.size() || peek() == '#') fail("multi-line arrays are not supported; close the array on its line");
      if (!consume(',')) fail("expected ',' or ']' in an array");
    }
    v.text = "[...]";
    return v;
  }

  TomlValue& number(TomlValue& v) {
    std::string digits;
    for (std::size_t i = 0; i < v.text.size(); ++i) {
      const char c = v.text[i];
      if (c == '_') {
        const bool ok = i > 0 && i + 1 < v.text.size() && std::isdigit(static_cast<unsigned char>(v.text[i - 1])) &&
                        std::isdigit(static_cast<unsigned char>(v.text[i + 1]));
        if (!ok) fail("'" + v.text + "' is not a value (an underscore must sit between digits)");
        continue;
      }
      digits += c;
    }
    const std::string body = (digits[0] == '+' || digits[0] == '-') ? digits.substr(1) : digits;
    if (body == "inf" || body == "nan") {
      v.type = TomlValue::Type::floating;
      v.floating = body == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      if (digits[0] == '-') v.floating = -v.floating;
      return v;
    }
    const bool is_integer = !body.empty() && body.find_first_not_of("0123456789") == std::string::npos;
    if (is_integer) {
      if (body.size() > 1 && body[0] == '0') fail("'" + v.text + "': leading zeros are not allowed");
      errno = 0;
      char* end = nullptr;
      const long long x = std::strtoll(digits.c_str(), &end, 10);
      if (errno == ERANGE || *end != '\0') fail("'" + v.text + "' does not fit in a 64-bit integer");
      v.type = TomlValue::Type::integer;
      v.integer = x;
      v.floating = static_cast<double>(x);
      return v;
    }
    // A float: digits, then a fraction and/or an exponent.
    std::size_t i = 0;
    auto run = [&] {
      const std::size_t start = i;
      while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i;
      return i > start;
    };
    bool ok = run();
    bool fraction_or_exponent = false;
    if (ok && i < body.size() && body[i] == '.') {
      ++i;
      ok = run();
      fraction_or_exponent = true;
    }
    if (ok && i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
      ++i;
      if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
      ok = run();
      fraction_or_exponent = true;
    }
    if (!ok || i != body.size() || !fraction_or_exponent) fail("'" + v.text + "' is not a value (not a string, number or boolean; strings need quotes)");
    v.type = TomlValue::Type::floating;
    v.floating = std::strtod(digits.c_str(), nullptr);
    return v;
  }

  const std::string& s_;
  const std::string& source_;
  int number_;
  std::size_t pos_ = 0;
};

}  // namespace

TomlDocument parse_toml(const std::string& text, const std::string& source) {
  TomlDocument doc;
  doc.source = source;
  std::istringstream in(text);
  std::string raw, table;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    Line line(raw, source, number);
    if (line.at_end_or_comment()) continue;
    if (line.consume('[')) {
      if (line.consume('[')) line.fail("arrays of tables ([[...]]) are not supported");
      table = line.key();
      if (!line.consume(']')) line.fail("expected ']' after the table name");
      if (!line.at_end_or_comment()) line.fail("unexpected text after the table header");
      continue;
    }
    const std::string key = line.key();
    if (!line.consume('=')) line.fail("expected '=' after the key '" + key + "'");
    TomlValue v = line.value();
    if (!line.at_end_or_comment()) line.fail("unexpected text after the value of '" + key + "'");
    const std::string full = table.empty() ? key : table + "." + key;
    // A key is either a value or a table, never both.
    for (std::size_t dot = full.find('.'); dot != std::string::npos; dot = full.find('.', dot + 1)) {
      // Named: "'" + a temporary gives a bogus -Wrestrict (GCC 12, C++20, -O3).
      const std::string parent_key = full.substr(0, dot);
      const auto parent = doc.values.find(parent_key);
      if (parent != doc.values.end())
        line.fail("'" + parent_key + "' is a value (line " + std::to_string(parent->second.line) +
                  "), so it cannot also hold '" + full + "'");
    }
    const auto child = doc.values.lower_bound(full + ".");
    if (child != doc.values.end() && child->first.compare(0, full.size() + 1, full + ".") == 0)
      line.fail("'" + full + "' is a table (it holds '" + child->first + "'), so it cannot also be a value");
    const auto [it, inserted] = doc.values.emplace(full, v);
    if (!inserted)
      line.fail("'" + full + "' is defined twice (first on line " + std::to_string(it->second.line) + ")");
  }
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
