#include "bench/bench_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "base/core/error.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::bench {

std::vector<std::string> list_entries(const std::string& option, const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) {
    std::stringstream in(value);
    std::string item;
    bool any = false;
    while (std::getline(in, item, ',')) {
      any = true;
      if (item.empty()) throw Error(option + ": empty entry in '" + value + "'; expected a comma-separated list");
      out.push_back(item);
    }
    if (!any) throw Error(option + ": empty value; expected a comma-separated list");
    if (value.back() == ',') throw Error(option + ": empty entry in '" + value + "'; expected a comma-separated list");
  }
  if (out.empty()) throw Error(option + ": no value given");
  return out;
}

bool parse_count(const std::string& text, std::uint64_t& value) {
  std::size_t pos = 0;
  std::uint64_t mantissa = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (mantissa > (UINT64_MAX - digit) / 10) return false;
    mantissa = mantissa * 10 + digit;
    ++pos;
  }
  if (pos == 0) return false;
  if (pos < text.size()) {
    if (text[pos] != 'e' && text[pos] != 'E') return false;
    const std::string exponent = text.substr(pos + 1);
    if (exponent.empty() || exponent.size() > 2 || exponent.find_first_not_of("0123456789") != std::string::npos)
      return false;
    for (int e = std::stoi(exponent); e > 0; --e) {
      if (mantissa > UINT64_MAX / 10) return false;
      mantissa *= 10;
    }
  }
  value = mantissa;
  return true;
}

int checked_repeats(long long repeats) {
  if (repeats < 1 || repeats > 1000000)
    throw Error("--repeats: " + std::to_string(repeats) + " is not a valid repeat count; expected 1 to 1000000");
  return static_cast<int>(repeats);
}

std::uint64_t checked_seed(long long seed) {
  if (seed < 0 || !rng::seed_is_valid(static_cast<std::uint64_t>(seed)))
    throw Error("--seed: " + std::to_string(seed) + " is out of range; expected 0 <= seed < 2^56");
  return static_cast<std::uint64_t>(seed);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6e", x);
  return buf;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &local);
  return buf;
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace rsmc::bench
