// A model's parameters, each declared once: name, member, default, meaning and constraint, in the
// parameter struct's declare_parameters() (in the style of dust2's `read_real(pars, "beta", 0.2)`).
// Everything else about the parameters comes from that declaration:
//   the defaults          reset() (the struct's default constructor calls it)
//   the checks            validate(): each parameter's constraint, then the struct's optional
//                         check_relations() for rules that tie parameters together (sizes, orderings)
//   the description       describe(): "name = value" lines, recorded in result files and checkpoints
//   the names             parameter_names(), and parameter_rows() for `rsmc models`
//   get / set by name     get(name), set(name, value), admits(name, value): the real and integer
//                         parameters as doubles, with the constraint check (for samplers that move
//                         parameters, e.g. particle MCMC)
//   a run file's [parameters]  read by drivers/model_parameters.hpp
//
//   struct StochasticVolatilityParams : rsmc::ParameterSet<StochasticVolatilityParams> {
//     static constexpr const char* model = "stochastic_volatility";  // names the model in messages
//     double mu, phi, sigma;
//     StochasticVolatilityParams() { reset(); }
//     template <class Declare>
//     void declare_parameters(Declare&& declare) {
//       declare(rsmc::real("mu", mu, -0.8698, "mean of the log-variance"));
//       declare(rsmc::real("phi", phi, 0.97779, "persistence").between(-1.0, 1.0, "a stationary AR(1)"));
//       declare(rsmc::real("sigma", sigma, 0.1585, "sd of the log-variance innovation").positive());
//     }
//   };
//
// The kinds of parameter: real (a double, finite unless said otherwise), integer (any integer type;
// the reader refuses values the type cannot hold), choice (an enum named by strings), real_vector and
// real_matrix (std::vector<double>, row-major, whose shape lives in int members of the struct) and
// dimension (an int set by a matrix's shape: described, never read). Messages read
// "<model>: <name> = <value>; expected <what>", e.g.
//   "stochastic_volatility: phi = 1; expected -1 < phi < 1 (a stationary AR(1) log-variance)".
//
// Host only. The struct itself stays a plain struct of numbers (and vectors) that models copy into
// kernels; ParameterSet adds no data and no virtual functions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rsmc {

// ---- text ---------------------------------------------------------------------------------------

// The shortest decimal form of v that reads back as the same double ("0.1", "1e-05", "-0.8698");
// integers below 1e15 in magnitude in full ("10", "-0"), never in exponent form.
std::string number_text(double v);
// "[1, 0.5]" and, row-major rows x cols, "[[0.9, 0.1], [0.2, 0.8]]" (numbers as number_text; a
// vector whose size is not rows x cols as vector_text).
std::string vector_text(const std::vector<double>& a);
std::string matrix_text(const std::vector<double>& a, int rows, int cols);

// Throws rsmc::Error("<model>: <name> = <value>; expected <expected>").
[[noreturn]] void bad_parameter(const std::string& model, const std::string& name, const std::string& value,
                                const std::string& expected);

// ---- constraints --------------------------------------------------------------------------------

// lo (<|<=) x (<|<=) hi for a finite x; an infinite bound is no bound. NaN and +-inf are never admitted.
struct RealBounds {
  double lo = -HUGE_VAL, hi = HUGE_VAL;
  bool lo_open = false, hi_open = false;
  const char* why = "";  // appended in parentheses

  bool admits(double x) const;
  // What a value of `name` must be: "a finite number", "a finite number > 0", "-1 < phi < 1 (why)".
  std::string expected(const std::string& name) const;
  // The same for `rsmc models`: "", "> 0", "-1 < phi < 1".
  std::string summary(const std::string& name) const;
};

// The bounds of an integer parameter, each with its reason.
struct IntegerBounds {
  std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const char* lo_why = "";
  const char* hi_why = "";

  // Empty when admitted, else what was expected: "an integer d >= 4 (why)".
  std::string violation(const std::string& name, std::int64_t value) const;
  std::string summary(const std::string& name) const;  // ">= 4", "1 <= K <= 31", ""
};

// Chained constraints on a real, or on every entry of a real vector or matrix.
template <class Self>
struct Bounded {
  RealBounds bounds;
  Self above(double lo) const { return with_lo(lo, true); }      // x > lo
  Self at_least(double lo) const { return with_lo(lo, false); }  // x >= lo
  Self below(double hi) const { return with_hi(hi, true); }      // x < hi
  Self at_most(double hi) const { return with_hi(hi, false); }   // x <= hi
  Self because(const char* why) const {
    Self copy = self();
    copy.bounds.why = why;
    return copy;
  }
  Self positive() const { return above(0.0); }
  Self nonnegative() const { return at_least(0.0); }
  // lo < x < hi.
  Self between(double lo, double hi, const char* why = "") const { return above(lo).below(hi).because(why); }

 private:
  const Self& self() const { return static_cast<const Self&>(*this); }
  Self with_lo(double lo, bool open) const {
    Self copy = self();
    copy.bounds.lo = lo;
    copy.bounds.lo_open = open;
    return copy;
  }
  Self with_hi(double hi, bool open) const {
    Self copy = self();
    copy.bounds.hi = hi;
    copy.bounds.hi_open = open;
    return copy;
  }
};

// ---- the kinds of parameter (what declare_parameters passes to `declare`) ----------------------

struct Real : Bounded<Real> {
  const char* name;
  double& value;
  double fallback;
  const char* doc;
  Real(const char* n, double& v, double f, const char* d) : name(n), value(v), fallback(f), doc(d) {}
};

template <class Int>
struct Integer {
  static_assert(std::is_integral_v<Int>, "rsmc::integer: the member must be of an integer type");
  const char* name;
  Int& value;
  Int fallback;
  const char* doc;
  IntegerBounds bounds;
  bool derived = false;  // a dimension: set from a matrix's shape, never read or set by name

  Integer at_least(std::int64_t lo, const char* why = "") const {
    Integer copy = *this;
    copy.bounds.lo = lo, copy.bounds.lo_why = why;
    return copy;
  }
  Integer at_most(std::int64_t hi, const char* why = "") const {
    Integer copy = *this;
    copy.bounds.hi = hi, copy.bounds.hi_why = why;
    return copy;
  }
  // The bounds together with what the member's type can hold.
  std::int64_t lowest() const {
    return std::max<std::int64_t>(bounds.lo, static_cast<std::int64_t>(std::numeric_limits<Int>::min()));
  }
  std::int64_t highest() const {
    constexpr auto type_max = std::numeric_limits<Int>::max();
    constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
    if constexpr (static_cast<std::uint64_t>(type_max) > static_cast<std::uint64_t>(int64_max))
      return bounds.hi;
    else
      return std::min<std::int64_t>(bounds.hi, static_cast<std::int64_t>(type_max));
  }
};

template <class E>
struct ChoiceOption {
  const char* name;
  E value;
};

// Lookups in a choice's options: the name of a value (nullptr for none), the option of a name.
template <class E>
const char* choice_name(const ChoiceOption<E>* options, std::size_t count, E value) {
  for (std::size_t i = 0; i < count; ++i)
    if (options[i].value == value) return options[i].name;
  return nullptr;
}
template <class E>
const ChoiceOption<E>* find_choice(const ChoiceOption<E>* options, std::size_t count, const std::string& text) {
  for (std::size_t i = 0; i < count; ++i)
    if (text == options[i].name) return &options[i];
  return nullptr;
}
// "'poisson' or 'negative_binomial'" (or with another quote character).
template <class E>
std::string choice_list(const ChoiceOption<E>* options, std::size_t count, char quote) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i)
    out += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") + quote + options[i].name + quote;
  return out;
}

template <class E>
struct Choice {
  const char* name;
  E& value;
  E fallback;
  const char* doc;
  const ChoiceOption<E>* options;
  std::size_t count;

  const char* name_of(E v) const { return choice_name(options, count, v); }
  const ChoiceOption<E>* find(const std::string& text) const { return find_choice(options, count, text); }
  std::string list(char quote) const { return choice_list(options, count, quote); }
};

struct RealVector : Bounded<RealVector> {
  const char* name;
  std::vector<double>& value;
  std::vector<double> fallback;
  const char* doc;
  RealVector(const char* n, std::vector<double>& v, std::vector<double> f, const char* d)
      : name(n), value(v), fallback(std::move(f)), doc(d) {}
};

struct RealMatrix : Bounded<RealMatrix> {
  const char* name;
  std::vector<double>& value;  // rows x cols, row-major
  std::vector<double> fallback;
  int& rows;
  int& cols;
  const char* doc;
  bool sets_rows = false;  // reading the matrix sets `rows` to its number of rows

  RealMatrix(const char* n, std::vector<double>& v, std::vector<double> f, int& r, int& c, const char* d)
      : name(n), value(v), fallback(std::move(f)), rows(r), cols(c), doc(d) {}
  // The matrix defines its number of rows: e.g. A (d x d) defines d.
  RealMatrix defines_rows() const {
    RealMatrix copy = *this;
    copy.sets_rows = true;
    return copy;
  }
};

// The declarations, for declare_parameters(): rsmc::real("phi", phi, 0.97779, "persistence").
inline Real real(const char* name, double& member, double fallback, const char* doc) {
  return Real(name, member, fallback, doc);
}
template <class Int>
Integer<Int> integer(const char* name, Int& member, Int fallback, const char* doc) {
  return Integer<Int>{name, member, fallback, doc, {}, false};
}
template <class E, std::size_t N>
Choice<E> choice(const char* name, E& member, E fallback, const char* doc, const ChoiceOption<E> (&options)[N]) {
  return Choice<E>{name, member, fallback, doc, options, N};
}
inline RealVector real_vector(const char* name, std::vector<double>& member, std::vector<double> fallback,
                              const char* doc) {
  return RealVector(name, member, std::move(fallback), doc);
}
// A rows x cols matrix; rows and cols are int members of the same struct declared before it.
inline RealMatrix real_matrix(const char* name, std::vector<double>& member, std::vector<double> fallback, int& rows,
                              int& cols, const char* doc) {
  return RealMatrix(name, member, std::move(fallback), rows, cols, doc);
}
// A dimension (>= 1) that matrices define (RealMatrix::defines_rows): described, not read.
inline Integer<int> dimension(const char* name, int& member, int fallback, const char* doc) {
  Integer<int> d{name, member, fallback, doc, {}, true};
  d.bounds.lo = 1;
  return d;
}

// The value a choice's text names; throws rsmc::Error "<model>: <name> = '<text>'; expected 'a' or 'b'"
// for any other text.
template <class E, std::size_t N>
E parse_choice(const std::string& model, const char* name, const ChoiceOption<E> (&options)[N],
               const std::string& text) {
  if (const ChoiceOption<E>* found = find_choice(options, N, text)) return found->value;
  bad_parameter(model, name, "'" + text + "'", choice_list(options, N, '\''));
}

// ---- what the framework does with the declarations --------------------------------------------

// One row of `rsmc models`: the name, the default as TOML and the meaning with the constraint.
struct ParameterRow {
  std::string name, default_text, doc;
};

namespace parameter_detail {

// Each operation on the declarations is a visitor with one overload per kind of parameter.

struct Reset {
  void operator()(const Real& p) const { p.value = p.fallback; }
  template <class Int>
  void operator()(const Integer<Int>& p) const {
    p.value = p.fallback;
  }
  template <class E>
  void operator()(const Choice<E>& p) const {
    p.value = p.fallback;
  }
  void operator()(const RealVector& p) const { p.value = p.fallback; }
  void operator()(const RealMatrix& p) const { p.value = p.fallback; }
};

struct Validate {
  const char* model;
  void operator()(const Real& p) const;
  template <class Int>
  void operator()(const Integer<Int>& p) const {
    const std::string violation = p.bounds.violation(p.name, static_cast<std::int64_t>(p.value));
    if (!violation.empty()) bad_parameter(model, p.name, std::to_string(p.value), violation);
  }
  template <class E>
  void operator()(const Choice<E>& p) const {
    if (p.name_of(p.value) == nullptr)
      bad_parameter(model, p.name, std::to_string(static_cast<long long>(p.value)), p.list('\''));
  }
  void operator()(const RealVector& p) const;
  void operator()(const RealMatrix& p) const;
};

// Either "name = value\n" lines into `out` (describe(): choices bare) or the rows of `rsmc models`
// into `rows` (values as TOML, choices quoted; dimensions left out, since no file sets them).
struct Describe {
  std::string* out;
  std::vector<ParameterRow>* rows;
  void line(const char* name, const std::string& value, const char* doc, const std::string& summary) const;
  void operator()(const Real& p) const { line(p.name, number_text(p.value), p.doc, p.bounds.summary(p.name)); }
  template <class Int>
  void operator()(const Integer<Int>& p) const {
    if (rows && p.derived) return;
    line(p.name, std::to_string(p.value), p.doc, p.bounds.summary(p.name));
  }
  template <class E>
  void operator()(const Choice<E>& p) const {
    const char* text = p.name_of(p.value);
    const std::string value = text ? text : std::to_string(static_cast<long long>(p.value));
    line(p.name, rows ? "\"" + value + "\"" : value, p.doc, p.list('"'));
  }
  void operator()(const RealVector& p) const {
    line(p.name, vector_text(p.value), p.doc, entries_summary(p.bounds, p.name));
  }
  void operator()(const RealMatrix& p) const {
    line(p.name, matrix_text(p.value, p.rows, p.cols), p.doc, entries_summary(p.bounds, p.name));
  }
  static std::string entries_summary(const RealBounds& b, const char* name);
};

struct Names {
  std::vector<std::string>* out;
  template <class Int>
  void operator()(const Integer<Int>& p) const {
    if (!p.derived) out->push_back(p.name);
  }
  template <class Kind>
  void operator()(const Kind& p) const {
    out->push_back(p.name);
  }
};

// get / set / admits on the scalar parameter called `name`: `act` is called with its Real or
// Integer declaration; anything else of that name is an error.
template <class Act>
struct Scalar {
  const char* model;
  const std::string& name;
  Act act;
  bool found = false;

  void operator()(const Real& p) {
    if (p.name != name) return;
    found = true;
    act(p);
  }
  template <class Int>
  void operator()(const Integer<Int>& p) {
    if (p.name != name) return;
    if (p.derived) not_scalar("is set by the shape of a matrix parameter");
    found = true;
    act(p);
  }
  template <class Kind>
  void operator()(const Kind& p) {
    if (p.name == name) not_scalar("is not a real or integer parameter");
  }
  [[noreturn]] void not_scalar(const char* why) const;
};

// Throw rsmc::Error: "<model>: no parameter '<name>'; its parameters: ..." and
// "<model>: <name> <why>; get and set by name take real and integer parameters".
[[noreturn]] void unknown_parameter(const char* model, const std::string& name, const std::vector<std::string>& known);
[[noreturn]] void not_scalar(const char* model, const std::string& name, const std::string& why);
template <class Act>
void Scalar<Act>::not_scalar(const char* why) const {
  parameter_detail::not_scalar(model, name, why);
}

// Why `value` cannot be the integer parameter (empty if it can).
std::string integer_violation(const std::string& name, double value, const IntegerBounds& bounds, std::int64_t lowest,
                              std::int64_t highest);

template <class P, class = void>
struct HasCheckRelations : std::false_type {};
template <class P>
struct HasCheckRelations<P, std::void_t<decltype(std::declval<const P&>().check_relations())>> : std::true_type {};

}  // namespace parameter_detail

// The base of a parameter struct P (see the top of this file). P declares
//   static constexpr const char* model;                   the model's name, for messages
//   template <class Declare> void declare_parameters(Declare&& declare);   each parameter once
// and optionally `void check_relations() const` (rules that tie parameters together; throws through
// bad_parameter like the declared constraints).
template <class P>
class ParameterSet {
 public:
  // Every parameter to its declared default.
  void reset() { self().declare_parameters(parameter_detail::Reset{}); }

  // Throws rsmc::Error naming the model and the first parameter that breaks its constraint (in
  // declaration order), then runs P::check_relations() where P has one.
  void validate() const {
    copy().declare_parameters(parameter_detail::Validate{P::model});
    if constexpr (parameter_detail::HasCheckRelations<P>::value) static_cast<const P&>(*this).check_relations();
  }

  // One "name = value\n" line per parameter in declaration order, numbers in their shortest
  // round-trip form (number_text), choices by name.
  std::string describe() const {
    std::string out;
    copy().declare_parameters(parameter_detail::Describe{&out, nullptr});
    return out;
  }

  // The names a run file's [parameters] may set, in declaration order (dimensions are not among them).
  static std::vector<std::string> parameter_names() {
    std::vector<std::string> names;
    P().declare_parameters(parameter_detail::Names{&names});
    return names;
  }

  // The value of the real or integer parameter `name`, as a double. Throws rsmc::Error for a name
  // that is unknown or of another kind.
  double get(const std::string& name) const {
    double out = 0.0;
    on_scalar(copy(), name, [&out](const auto& p) { out = static_cast<double>(p.value); });
    return out;
  }

  // Sets the real or integer parameter `name` to `value` if its constraint admits it (an integer
  // parameter: an integral value within its bounds); otherwise throws rsmc::Error
  // "<model>: <name> = <value>; expected <what>" and leaves it unchanged. Rules between parameters
  // (check_relations) are checked by validate(), e.g. when the model is built.
  void set(const std::string& name, double value) {
    on_scalar(self(), name, [&](const auto& p) {
      const std::string why = violation(p, value);
      if (!why.empty()) bad_parameter(P::model, name, number_text(value), why);
      assign(p, value);
    });
  }

  // Whether set(name, value) would accept the value (a proposal outside a parameter's support).
  // Throws rsmc::Error for a name that is unknown or of another kind.
  bool admits(const std::string& name, double value) const {
    bool ok = false;
    on_scalar(copy(), name, [&](const auto& p) { ok = violation(p, value).empty(); });
    return ok;
  }

 private:
  P& self() { return static_cast<P&>(*this); }
  P copy() const { return static_cast<const P&>(*this); }

  template <class Act>
  static void on_scalar(P&& params, const std::string& name, Act act) {
    on_scalar(params, name, std::move(act));
  }
  template <class Act>
  static void on_scalar(P& params, const std::string& name, Act act) {
    parameter_detail::Scalar<Act> scalar{P::model, name, std::move(act)};
    params.declare_parameters(scalar);
    if (!scalar.found) parameter_detail::unknown_parameter(P::model, name, parameter_names());
  }

  static std::string violation(const Real& p, double value) {
    return p.bounds.admits(value) ? std::string() : p.bounds.expected(p.name);
  }
  template <class Int>
  static std::string violation(const Integer<Int>& p, double value) {
    return parameter_detail::integer_violation(p.name, value, p.bounds, p.lowest(), p.highest());
  }
  static void assign(const Real& p, double value) { p.value = value; }
  template <class Int>
  static void assign(const Integer<Int>& p, double value) {
    p.value = static_cast<Int>(value);
  }
};

// The rows `rsmc models` prints for P: each parameter with its default (as TOML) and its meaning
// followed by its constraint.
template <class P>
std::vector<ParameterRow> parameter_rows() {
  std::vector<ParameterRow> rows;
  P().declare_parameters(parameter_detail::Describe{nullptr, &rows});
  return rows;
}

// `params` after params.validate(): for model constructors, `p_(validated(params))`.
template <class P>
P validated(const P& params) {
  params.validate();
  return params;
}

}  // namespace rsmc
