// NVIDIA's demangler (Nsight Systems, Nsight Compute, cu++filt) spells the same names differently
// from GNU's __cxa_demangle, which flopspy uses: "[lambda(float) (instance 1)]" for
// "{lambda(float)#1}", "(int)4" for "4", "char *" for "char*", "<unnamed>" for "(anonymous
// namespace)". Names pasted from those tools are rewritten to the GNU spelling, so that one set
// of catalog patterns serves both.
#include <array>
#include <cctype>
#include <string>

#include "flopspy/analyzers/demangle.h"

namespace flopspy::analyzers {
namespace {

bool StartsWithAt(std::string_view text, size_t at, std::string_view prefix) {
  return at <= text.size() && text.substr(at, prefix.size()) == prefix;
}

// "[lambda(ARGS) (instance N)]" at `at`: appends "{lambda(ARGS)#N}" and returns the length
// consumed, or 0 when the text there is not of that form.
size_t RewriteLambda(std::string_view text, size_t at, std::string& out) {
  constexpr std::string_view kOpen = "[lambda(";
  if (!StartsWithAt(text, at, kOpen)) return 0;
  size_t i = at + kOpen.size();
  int depth = 1;
  for (; i < text.size() && depth > 0; ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
  }
  if (depth != 0) return 0;
  const std::string_view args = text.substr(at + kOpen.size(), i - 1 - (at + kOpen.size()));
  constexpr std::string_view kInstance = " (instance ";
  if (!StartsWithAt(text, i, kInstance)) return 0;
  size_t j = i + kInstance.size();
  const size_t digits = j;
  while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
  if (j == digits || !StartsWithAt(text, j, ")]")) return 0;
  out += "{lambda(";
  out += args;
  out += ")#";
  out += text.substr(digits, j - digits);
  out += '}';
  return j + 2 - at;
}

// "(int)4", "(unsigned long)3", "(bool)1" at `at`: appends the GNU spelling of the literal
// ("4", "3ul", "true") and returns the length consumed, or 0.
size_t RewriteCastLiteral(std::string_view text, size_t at, std::string& out) {
  struct Cast {
    std::string_view type;
    std::string_view suffix;
  };
  static constexpr std::array<Cast, 8> kCasts = {{{"int", ""},
                                                  {"unsigned int", "u"},
                                                  {"long", "l"},
                                                  {"unsigned long", "ul"},
                                                  {"long long", "ll"},
                                                  {"unsigned long long", "ull"},
                                                  {"short", ""},
                                                  {"bool", ""}}};
  if (text[at] != '(') return 0;
  for (const Cast& c : kCasts) {
    if (!StartsWithAt(text, at + 1, c.type) || !StartsWithAt(text, at + 1 + c.type.size(), ")")) {
      continue;
    }
    size_t j = at + 2 + c.type.size();
    const size_t start = j;
    if (j < text.size() && text[j] == '-') ++j;
    const size_t first_digit = j;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == first_digit) return 0;
    const std::string_view literal = text.substr(start, j - start);
    if (c.type == "bool") {
      out += literal == "0" ? "false" : "true";
    } else {
      out += literal;
      out += c.suffix;
    }
    return j - at;
  }
  return 0;
}

}  // namespace

std::string NormalizeDemangledName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (const size_t n = RewriteLambda(name, i, out)) {
      i += n;
    } else if (const size_t m = RewriteCastLiteral(name, i, out)) {
      i += m;
    } else if (StartsWithAt(name, i, "<unnamed>")) {
      out += "(anonymous namespace)";
      i += 9;
    } else if (StartsWithAt(name, i, "operator ()")) {
      out += "operator()";
      i += 11;
    } else if (name[i] == ' ' && i + 1 < name.size() &&
               (name[i + 1] == '*' || name[i + 1] == '&') && i > 0 && name[i - 1] != ',' &&
               name[i - 1] != '(') {
      ++i;  // "char *" -> "char*", "TensorIteratorBase &" -> "TensorIteratorBase&"
    } else {
      out += name[i++];
    }
  }
  return out;
}

}  // namespace flopspy::analyzers
