// The shortest decimal text of a double that reads back as the same double, for the messages and
// descriptions of the inference code ("0.5", "1e-08", "inf", "nan").
#pragma once

#include <string>

namespace rsmc::inference {

std::string number_text(double v);

}  // namespace rsmc::inference
