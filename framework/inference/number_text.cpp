// Shortest round-trip text of a double through std::to_chars (framework/inference/number_text.hpp).
#include "framework/inference/number_text.hpp"

#include <charconv>

namespace rsmc::inference {

std::string number_text(double v) {
    char buf[64];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
    return std::string(buf, r.ptr);
}

}  // namespace rsmc::inference
