// The command line's names for the library's fields: the one place that maps rsmc's own names
// (FilterOptions members, parameters of library functions, the keys of a run file) to the flags of
// `rsmc filter` and `rsmc simulate`. The library refuses an input with a FieldError naming its field
// ("particles: 0 is not a valid particle count; ..."); what a command-line user reads names the flag
// ("--particles: 0 is not a valid particle count; ...").
#pragma once

#include <exception>
#include <string>

namespace rsmc::drivers {

// The flag for `field` ("scheme" -> "--resampling"); a field without one keeps its own name.
std::string flag_for(const std::string& field);

// How the command line writes a reference to `field` set to `value` (empty: the field alone):
// "--resampling multinomial", "--overwrite" for a switch set to true.
std::string flag_reference(const std::string& field, const std::string& value);

// The one-line message of `e` for the command line: a FieldError with flags, anything else as is.
std::string error_text(const std::exception& e);

}  // namespace rsmc::drivers
