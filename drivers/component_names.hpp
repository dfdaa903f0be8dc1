// Names of a model's state and observation components, for CSV headers, result files and plots.
// A model may declare `static std::string state_name(int c)` and `observation_name(int j)`
// (optional, see docs/models.md and framework/model/model_traits.hpp); without them the names are
// x1..xd and y1..ym.
#pragma once

#include <string>
#include <vector>

#include "framework/model/model_traits.hpp"

namespace rsmc::drivers {

template <class Model>
std::vector<std::string> state_names(const Model& model) {
  std::vector<std::string> names;
  for (int c = 0; c < model.state_dim(); ++c) {
    if constexpr (has_state_name_v<Model>)
      names.push_back(model.state_name(c));
    else
      names.push_back("x" + std::to_string(c + 1));
  }
  return names;
}

template <class Model>
std::vector<std::string> observation_names(const Model& model) {
  std::vector<std::string> names;
  for (int j = 0; j < model.obs_dim(); ++j) {
    if constexpr (has_observation_name_v<Model>)
      names.push_back(model.observation_name(j));
    else
      names.push_back("y" + std::to_string(j + 1));
  }
  return names;
}

// "a,b,c": the form of the result file's `state_names` attribute.
inline std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace rsmc::drivers
