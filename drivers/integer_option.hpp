// Integer options written the way people write large counts: "1000000", "1e6", "2.5e5", "1E+6"
// (integral scientific notation, read exactly, never through a double). Values that are not whole
// numbers ("1.5e0", "1e-3") and values beyond a 64-bit integer ("1e30") are refused with a message
// that says which.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rsmc::drivers {

// The integer `text` denotes, as plain decimal ("2.5e5" -> "250000"). Throws rsmc::Error with the
// reason ("1.5e0 is not an integer", "1e30 is out of range ...") when it denotes none, or a negative
// one and !allow_negative.
std::string integer_text(const std::string& text, bool allow_negative);

// A CLI11 transform for an integer option: reads the notation above, so the option's own parser
// only ever sees plain decimal. Errors name the option ("--particles: 1.5e0 is not an integer; ...").
CLI::Validator integer_notation(bool allow_negative);

}  // namespace rsmc::drivers
