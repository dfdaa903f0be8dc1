// Names of a model's state and observation components, for CSV headers, result files and plots.
// A model may declare `static std::string state_name(int c)` and `observation_name(int j)`
// (optional, see docs/models.md); without them the names are x1..xd and y1..ym.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rsmc::drivers {

template <class Model, class = void>
struct HasStateName : std::false_type {};
template <class Model>
struct HasStateName<Model, std::void_t<decltype(std::string(std::declval<const Model&>().state_name(0)))>>
    : std::true_type {};

template <class Model, class = void>
struct HasObservationName : std::false_type {};
template <class Model>
struct HasObservationName<Model,
                          std::void_t<decltype(std::string(std::declval<const Model&>().observation_name(0)))>>
    : std::true_type {};

template <class Model>
std::vector<std::string> state_names(const Model& model) {
  std::vector<std::string> names;
  for (int c = 0; c < model.state_dim(); ++c) {
    if constexpr (HasStateName<Model>::value)
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
    if constexpr (HasObservationName<Model>::value)
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
