// Itanium C++ name demangling and cheap, allocation-light helpers to take a demangled kernel name
// apart: return type, qualified name, the function's own template arguments and its parameter list.
// The helpers never throw and never fail hard: text they cannot split comes back whole or empty.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flopspy::analyzers {

// Demangles a mangled C++ name (CUPTI and cuFuncGetName report these). Returns the input
// unchanged when it is not a mangled name or the demangler rejects it.
std::string Demangle(std::string_view mangled);

// Rewrites a name as NVIDIA's tools print it (Nsight Systems, Nsight Compute, cu++filt) into
// GNU __cxa_demangle's spelling: "[lambda(float) (instance 1)]" -> "{lambda(float)#1}",
// "(int)4" -> "4", "(unsigned long)3" -> "3ul", "(bool)1" -> "true", "<unnamed>" -> "(anonymous
// namespace)", "char *" -> "char*", "operator ()" -> "operator()". GNU names pass unchanged.
std::string NormalizeDemangledName(std::string_view name);

// Whether the text looks like an Itanium mangled name ("_Z...").
bool IsMangledName(std::string_view name);

// The pieces of a demangled function name such as
//   "void at::native::vectorized_elementwise_kernel<4, F, std::array<char*, 2ul> >(int, F, ...)".
// All views point into the text that was split.
struct FunctionNameParts {
  std::string_view return_type;  // "void"; empty when the name has none (C names, Triton)
  std::string_view qualified;    // "at::native::vectorized_elementwise_kernel" (no arguments)
  std::string_view base;         // "vectorized_elementwise_kernel"
  std::vector<std::string_view> template_args;  // "4", "F", "std::array<char*, 2ul>"
  std::vector<std::string_view> params;         // "int", "F", "std::array<char*, 2ul>"
  bool has_params = false;                      // a parameter list was present, possibly empty
};

// Splits a demangled function name. A trailing " [clone .kd]" (ROCm code objects) is ignored.
FunctionNameParts SplitFunctionName(std::string_view demangled);

// Splits a comma-separated list at nesting depth zero of <>, (), {} and [], trimming blanks:
// "float, std::pair<int, int>, {lambda(float, float)#1}" -> 3 items. Empty input -> no items.
std::vector<std::string_view> SplitTopLevel(std::string_view list);

// A template-id "ns::Name<a, b>" possibly followed by more text ("::operator()(...)", "(...)").
struct TemplateId {
  std::string_view name;               // "ns::Name"
  std::vector<std::string_view> args;  // "a", "b"
  std::string_view rest;               // what follows the closing '>'
};

// Parses the first template-id at the start of `text`; nullopt when `text` has no top-level '<'
// before its first top-level '(' or the brackets do not balance.
std::optional<TemplateId> ParseTemplateId(std::string_view text);

// The last "::"-separated component at nesting depth zero: "at::native::(anonymous
// namespace)::Foo" -> "Foo".
std::string_view LastComponent(std::string_view qualified);

// Removes leading and trailing blanks.
std::string_view TrimBlanks(std::string_view text);

// Parameter types of the innermost lambda in a name such as
// "f(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float, bool)#1}":
// {"float", "bool"}. nullopt when the text names no lambda.
std::optional<std::vector<std::string_view>> LastLambdaParams(std::string_view text);

}  // namespace flopspy::analyzers
