// Model parameters from a run configuration's [parameters] table, with errors naming the file, the
// line, the parameter and what was expected. read<P>() turns them into a model's parameter struct
// (declared as in framework/model/parameters.hpp); anything not given keeps the declared default.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/config/toml.hpp"
#include "framework/model/parameters.hpp"

namespace rsmc::drivers {

class ModelParameters {
 public:
  ModelParameters() = default;
  // `values`: the keys under [parameters] (prefix removed); `doc`: where they came from (messages).
  ModelParameters(std::map<std::string, config::TomlValue> values, const config::TomlDocument* doc)
      : values_(std::move(values)), doc_(doc) {}

  bool has(const std::string& name) const { return values_.count(name) > 0; }

  // The value of `name`, or `fallback` when not given. Errors name the key and the expectation.
  double number(const std::string& name, double fallback) const;
  long long integer(const std::string& name, long long fallback) const;
  // An integer in [min, max] (an error naming the key and the range otherwise): for a parameter held
  // in a narrower type than long long, so that e.g. d = 5000000000 is refused, never wrapped around.
  long long integer(const std::string& name, long long fallback, long long min, long long max) const;
  std::string text(const std::string& name, const std::string& fallback) const;
  std::vector<double> vector(const std::string& name, const std::vector<double>& fallback) const;
  // A matrix as an array of rows ([[a, b], [c, d]]), returned row-major with its shape.
  std::vector<double> matrix(const std::string& name, const std::vector<double>& fallback, int fallback_rows,
                             int fallback_cols, int& rows, int& cols) const;

  // Where an integer parameter equal to `value` was given ("run.toml:4: parameters.d"), or "": how
  // a message about a model's size (its state dimension) names the setting that made it so.
  std::string where_integer(long long value) const;

  // The given values as `key = value` lines, sorted by key (identifies a run of a model that has
  // no params().describe(): its defaults are fixed by the program, so the given values suffice).
  std::string describe() const;

  // Every given key must be one of `known` (the model's parameter names).
  void check_known(const std::string& model, const std::vector<std::string>& known) const;

  // The parameter struct P: P's declared defaults, overridden by the values given here. A key P does
  // not declare, a value of the wrong type, an integer outside its declared bounds (or beyond what
  // its member holds) and an unknown choice are errors naming the parameter (the type and range
  // errors also the file and line). The other constraints are P::validate()'s.
  // Runs `build` (reading, checking and building a model); an rsmc::Error it throws about one of the
  // given parameters ("linear_gaussian: R[0][0] = inf; expected ...") gets that parameter's file and
  // line in front. Messages that have a location already, or name no given parameter, pass as they are.
  template <class Build>
  auto located(const std::string& model, const Build& build) const -> decltype(build()) {
    try {
      return build();
    } catch (const FieldError&) {
      throw;
    } catch (const Error& e) {
      const std::string where = where_named(model, e.what());
      if (where.empty()) throw;
      throw Error(where + e.what());
    }
  }

  template <class P>
  P read() const {
    check_known(P::model, P::parameter_names());
    P params;
    params.declare_parameters(Reader{*this, P::model});
    return params;
  }

 private:
  // Sets each declared parameter that the configuration gives (read<P>()).
  struct Reader {
    const ModelParameters& given;
    const char* model;
    void operator()(const Real& p) const { p.value = given.number(p.name, p.value); }
    template <class Int>
    void operator()(const Integer<Int>& p) const {
      if (!p.derived) p.value = static_cast<Int>(given.integer(p.name, p.value, p.lowest(), p.highest()));
    }
    template <class E>
    void operator()(const Choice<E>& p) const {
      if (!given.has(p.name)) return;
      const std::string text = given.text(p.name, "");
      const ChoiceOption<E>* found = p.find(text);
      if (found == nullptr) bad_parameter(model, p.name, "'" + text + "'", p.list('\''));
      p.value = found->value;
    }
    void operator()(const RealVector& p) const { p.value = given.vector(p.name, p.value); }
    void operator()(const RealMatrix& p) const;
  };

  [[noreturn]] void bad(const std::string& name, const std::string& expected) const;
  // "FILE:LINE: " of the given parameter that `message` ("<model>: <name>...") is about, or "".
  std::string where_named(const std::string& model, const std::string& message) const;

  std::map<std::string, config::TomlValue> values_;
  const config::TomlDocument* doc_ = nullptr;
};

}  // namespace rsmc::drivers
