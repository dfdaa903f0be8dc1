// The one exception type rsmc throws for bad input, bad configuration and failed I/O.
//
// The message must name the input and say what was expected ("--particles: 0 is not a valid
// particle count; expected an integer >= number of ranks (4)"). Drivers print it as one line on
// stderr and exit non-zero; library code never prints or aborts on its own.
#pragma once

#include <stdexcept>
#include <string>

namespace rsmc {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Every particle has zero weight after weighting step `step`. Thrown by the filter after it has
// restored the particles of step - 1 (the last good step), so a driver can checkpoint them.
class DegenerateError : public Error {
 public:
  DegenerateError(const std::string& message, int step) : Error(message), step_(step) {}
  int step() const { return step_; }

 private:
  int step_;
};

}  // namespace rsmc
