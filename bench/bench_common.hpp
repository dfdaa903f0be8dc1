// Pieces every `rsmc bench ...` command shares: list options, counts written as 1e6, the JSON
// fields of a result line, the date and host stamped on it, and the median of repeated timings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"

namespace rsmc::bench {

// Entries of a list option: "a,b" and repeated options alike; empty entries are an error
// (rsmc::Error naming `option`).
std::vector<std::string> list_entries(const std::string& option, const std::vector<std::string>& values);

// The choices a list option names: every entry is name(c) of one of `choices`, or, when `all` is
// true, "all" for every choice in order. An unknown entry is an rsmc::Error: "<option>: unknown
// <what> '<entry>'; expected [all or a list of ]<the names>".
template <class T, class Name>
std::vector<T> named_entries(const std::string& option, const std::string& what, const std::vector<std::string>& values,
                             const std::vector<T>& choices, Name name, bool all) {
  std::vector<T> out;
  for (const auto& text : list_entries(option, values)) {
    if (all && text == "all") {
      out.insert(out.end(), choices.begin(), choices.end());
      continue;
    }
    bool found = false;
    for (const T& c : choices)
      if (text == name(c)) {
        out.push_back(c);
        found = true;
      }
    if (!found) {
      std::string names;
      for (std::size_t i = 0; i < choices.size(); ++i)
        names += std::string(i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + name(choices[i]);
      throw Error(option + ": unknown " + what + " '" + text + "'; expected " + (all ? "all or a list of " : "") +
                  names);
    }
  }
  return out;
}

// A non-negative integer written as digits, optionally with a decimal exponent: 100000, 1e6, 25e4.
// False when the text is not of that form or the value does not fit in 64 bits.
bool parse_count(const std::string& text, std::uint64_t& value);

// The checked values of the --repeats (1 to 10^6) and --seed (0 <= seed < 2^56) options every
// benchmark has; rsmc::Error otherwise.
int checked_repeats(long long repeats);
std::uint64_t checked_seed(long long seed);

// A JSON string literal (quotes and escapes included), and a number with 7 significant digits
// (null when not finite).
std::string json_string(const std::string& s);
std::string json_number(double x);

// The local date, YYYY-MM-DD, and this machine's host name ("unknown" if it has none).
std::string today();
std::string host_name();

// The median of a non-empty list (the mean of the middle two for an even count).
double median(std::vector<double> v);

}  // namespace rsmc::bench
