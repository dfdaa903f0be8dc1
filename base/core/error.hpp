// The exceptions rsmc throws for bad input, bad configuration and failed I/O.
//
// A message names the input and says what was expected. Drivers print it as one line on stderr and
// exit non-zero; library code never prints or aborts on its own.
//
// FieldError is the library's refusal of one input, in the library's own terms: the field it came
// from (a member of an options struct such as FilterOptions::particles, or a function's parameter),
// the value, and what was expected:
//     particles: 0 is not a valid particle count; expected an integer >= 1
// Its text may mention other fields as {name} or {name value}, written "name" and "name = value" by
// what(). A program with its own names for the fields renders the message with them (rsmc's command
// line writes flags: "--particles: 0 is not a valid ..."; drivers/field_flags.hpp).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace rsmc {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class FieldError : public Error {
 public:
  // How a reader writes a reference to `field` (value empty) or to `field` set to `value`.
  using Namer = std::function<std::string(const std::string& field, const std::string& value)>;

  // A message of any shape about `field`: `text` is the whole message, with references;
  // `expectation` (references allowed) what was expected instead.
  struct Template {
    std::string text;
  };
  FieldError(std::string field, std::string value, const Template& text, std::string expectation)
      : Error(render(text.text, library_name)),
        field_(std::move(field)),
        value_(std::move(value)),
        template_(text.text),
        expectation_(std::move(expectation)) {}

  // The usual shape, "<field>: <value> <problem>; expected <expectation>". `value` is taken
  // literally; `problem` and `expectation` may hold references ({name}, {name value}; "{{" and "}}"
  // for braces).
  FieldError(const std::string& field, const std::string& value, const std::string& problem,
             const std::string& expectation)
      : FieldError(field, value,
                   Template{"{" + field + "}: " + literal(value) + " " + problem + "; expected " + expectation},
                   expectation) {}

  // `text` with its braces escaped, to be taken literally inside a template.
  static std::string literal(const std::string& text) {
    std::string out;
    for (char c : text) {
      out += c;
      if (c == '{' || c == '}') out += c;
    }
    return out;
  }

  const std::string& field() const noexcept { return field_; }
  const std::string& value() const noexcept { return value_; }
  // What was expected instead, with references written as what() writes them.
  std::string expectation() const { return render(expectation_, library_name); }

  // The message with every field reference written by `name`.
  std::string message(const Namer& name) const { return render(template_, name); }

  // The library's own way of writing a reference: "particles", "scheme = multinomial".
  static std::string library_name(const std::string& field, const std::string& value) {
    return value.empty() ? field : field + " = " + value;
  }

 private:
  // Writes `text` with each {name} / {name value} replaced by name(name, value).
  static std::string render(const std::string& text, const Namer& name) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
        out += c;
        ++i;
        continue;
      }
      const std::size_t close = c == '{' ? text.find('}', i) : std::string::npos;
      if (close == std::string::npos) {
        out += c;
        continue;
      }
      const std::string ref = text.substr(i + 1, close - i - 1);
      const std::size_t space = ref.find(' ');
      out += space == std::string::npos ? name(ref, "") : name(ref.substr(0, space), ref.substr(space + 1));
      i = close;
    }
    return out;
  }

  std::string field_, value_;
  std::string template_;
  std::string expectation_;
};

// `text` for a message: itself when short, else its start and its length, so that a megabyte of
// input never becomes a megabyte of error line ("aaaaaaaa... (1048576 bytes)"). Never cuts inside a
// UTF-8 sequence.
inline std::string excerpt(const std::string& text, std::size_t limit = 80) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit > 24 ? limit - 24 : limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "... (" + std::to_string(text.size()) + " bytes)";
}

// `value` is none of the names a `field` of this `kind` can take ("scheme: unknown scheme 'bogus';
// expected multinomial, stratified, systematic or residual").
inline FieldError unknown_choice(const std::string& field, const std::string& value, const std::string& kind,
                                 const std::string& choices) {
  return FieldError(field, value,
                    FieldError::Template{"{" + field + "}: unknown " + kind + " '" +
                                         FieldError::literal(excerpt(value)) + "'; expected " + choices},
                    choices);
}

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
