// See integer_option.hpp.
#include "drivers/integer_option.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "base/core/error.hpp"

namespace rsmc::drivers {
namespace {

bool all_digits(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Removes a leading '+' or '-'; true for '-'.
bool take_sign(std::string& s) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return false;
  const bool negative = s[0] == '-';
  s.erase(0, 1);
  return negative;
}

// `s` without leading zeros, keeping at least `keep` characters.
std::string without_leading_zeros(const std::string& s, std::size_t keep) {
  const std::size_t first = std::min(s.find_first_not_of('0'), s.size() - std::min(keep, s.size()));
  return s.substr(first);
}

}  // namespace

std::string integer_text(const std::string& text, bool allow_negative) {
  const std::string expected =
      allow_negative ? "an integer, e.g. 250000, 2.5e5 or -3" : "an integer >= 0, e.g. 250000 or 2.5e5";
  const std::string out_of_range = text + " is out of range; expected at most 2^63 - 1 (about 9.2e18)";
  const std::string not_integer = text + " is not an integer; expected " + expected;

  // [sign] whole [. fraction] [e|E [sign] exponent]
  std::string rest = text;
  const bool negative = take_sign(rest);
  const std::size_t e = rest.find_first_of("eE");
  std::string exponent_text = e == std::string::npos ? "0" : rest.substr(e + 1);
  const std::string mantissa = rest.substr(0, e);
  const std::size_t dot = mantissa.find('.');
  const std::string whole = mantissa.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : mantissa.substr(dot + 1);
  const bool exponent_negative = take_sign(exponent_text);
  if ((whole.empty() && fraction.empty()) || !all_digits(whole) || !all_digits(fraction) || exponent_text.empty() ||
      !all_digits(exponent_text))
    throw Error(text + " is not a number; expected " + expected);

  // The value is digits x 10^exponent, exactly.
  std::string digits = without_leading_zeros(whole + fraction, 0);
  if (digits.empty()) return "0";
  exponent_text = without_leading_zeros(exponent_text, 1);
  if (exponent_text.size() > 4) throw Error(exponent_negative ? not_integer : out_of_range);  // 10^10000 and beyond
  long exponent = std::stol(exponent_text) * (exponent_negative ? -1 : 1) - static_cast<long>(fraction.size());
  for (; exponent < 0 && digits.back() == '0'; ++exponent) digits.pop_back();  // trailing zeros absorb it
  if (exponent < 0) throw Error(not_integer);
  if (negative && !allow_negative) throw Error(text + " is negative; expected " + expected);
  if (digits.size() + static_cast<std::size_t>(exponent) > 19) throw Error(out_of_range);
  digits.append(static_cast<std::size_t>(exponent), '0');
  const unsigned long long limit =
      static_cast<unsigned long long>(std::numeric_limits<long long>::max()) + (negative ? 1 : 0);
  if (std::stoull(digits) > limit) throw Error(out_of_range);  // at most 19 digits: stoull cannot overflow
  return (negative ? "-" : "") + digits;
}

CLI::Validator integer_notation(bool allow_negative) {
  return CLI::Validator(
      [allow_negative](std::string& value) {
        try {
          value = integer_text(value, allow_negative);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "", "integer notation");
}

}  // namespace rsmc::drivers
