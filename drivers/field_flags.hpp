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

// Where the value of a run-file key came from ("run.toml:7: "), recorded by ConfigBindings::apply
// for each value a run file (or a checkpoint's configuration) set and the command line did not.
// One table per process: a process runs one command.
void record_value_origin(const std::string& key, const std::string& where);
void clear_value_origins();

// How a message names the setting `key` (a run-file key, e.g. "burn_in"): its flag ("--burn-in"),
// or "run.toml:7: burn_in" when a run file set it. For messages that start with the setting.
std::string input_name(const std::string& key);

// The one-line message of `e` for the command line: a FieldError with flags, or with the file and
// line of a field a run file set ("run.toml:3: seed: ..."); anything else as is.
std::string error_text(const std::exception& e);

// `message` as one printable line of at most about 2000 bytes: line breaks, tabs, other control
// characters (a NUL byte of a damaged file would end a C string early) and bytes that are not UTF-8
// (UTF-16 text) written as escapes (\n, \x00); a longer message keeps its start and its end, with
// the number of bytes left out between them.
std::string one_line(const std::string& message);

}  // namespace rsmc::drivers
