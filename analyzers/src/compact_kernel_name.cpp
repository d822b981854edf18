#include "compact_kernel_name.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "flopspy/analyzers/demangle.h"

namespace flopspy::analyzers {
namespace {

// Template arguments that only carry plumbing: two kernels never differ by these alone.
constexpr std::array<std::string_view, 10> kPlumbing = {
    "Array",        "array",         "OffsetCalculator", "TrivialOffsetCalculator",
    "LoadWithCast", "StoreWithCast", "LoadWithoutCast",  "StoreWithoutCast",
    "OpaqueType",   "IntDivider"};

// Templates that wrap the kernel that matters (cutlass::device_kernel<GemmKernel>).
constexpr std::array<std::string_view, 3> kWrappers = {"device_kernel", "Kernel", "Kernel2"};

// Scalar types: dropped beside a functor in the terse form ("BinaryFunctor<MulFunctor<float>>").
constexpr std::array<std::string_view, 12> kScalars = {
    "float", "double", "Half", "BFloat16", "half_t", "bfloat16_t",
    "int",   "long",   "bool", "char",     "__half", "__nv_bfloat16"};

bool Contains(const auto& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// "128", "-1", "3ul" -> the digits without suffix; empty when `text` is not an integer.
std::string IntegerText(std::string_view text) {
  size_t i = text.starts_with('-') ? 1 : 0;
  const size_t digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == digits) return "";
  for (size_t j = i; j < text.size(); ++j) {
    if (text[j] != 'u' && text[j] != 'l') return "";
  }
  return std::string(text.substr(0, i));
}

bool IsInteger(std::string_view text) {
  return !IntegerText(text).empty();
}

// Splits at "::" outside brackets.
std::vector<std::string_view> ScopeParts(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(' || c == '{' || c == '[') {
      ++depth;
    } else if (c == '>' || c == ')' || c == '}' || c == ']') {
      if (depth > 0) --depth;
    } else if (c == ':' && depth == 0 && i + 1 < text.size() && text[i + 1] == ':') {
      parts.push_back(text.substr(begin, i - begin));
      begin = i + 2;
      ++i;
    }
  }
  parts.push_back(text.substr(begin));
  return parts;
}

// A scope part that names nothing a reader knows: a lambda, an operator, an anonymous scope.
bool IsUnnamed(std::string_view part) {
  return part.empty() || part.starts_with('{') || part.starts_with("operator") ||
         part.starts_with("(anonymous");
}

// "f<a>(int, float) const" -> "f<a>": the part before a parameter list outside '<>'.
std::string_view WithoutParams(std::string_view part) {
  int angle = 0;
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == '<') ++angle;
    if (part[i] == '>' && angle > 0) --angle;
    if (part[i] == '(' && angle == 0 && i > 0) return TrimBlanks(part.substr(0, i));
  }
  return TrimBlanks(part);
}

std::string Render(std::string_view text, int depth, bool terse);

// `name` with its template arguments, each compacted; empty when the whole is plumbing.
std::string RenderTemplate(std::string_view name, const std::vector<std::string_view>& args,
                           int depth, bool terse) {
  if (depth > 0 && Contains(kPlumbing, name)) return "";
  std::vector<std::string> shown;
  for (std::string_view arg : args) {
    std::string s = Render(arg, depth + 1, terse);
    if (!s.empty()) shown.push_back(std::move(s));
  }
  const auto scalar = [](const std::string& s) { return Contains(kScalars, s); };
  if (terse && depth > 0 && !std::all_of(shown.begin(), shown.end(), scalar)) {
    std::erase_if(shown, scalar);
  }
  const bool numbers = !shown.empty() && std::all_of(shown.begin(), shown.end(),
                                                     [](auto& s) { return IsInteger(s); });
  // cute::C<128> and cute::Int<128> are the number; GemmShape<128, 64, 32> is the tile.
  if (numbers && shown.size() == 1 && (name == "C" || name == "Int")) return shown[0];
  if (numbers && shown.size() >= 2 && depth > 0) {
    std::string tile = shown[0];
    for (size_t i = 1; i < shown.size(); ++i) tile += "x" + shown[i];
    return tile;
  }
  if (Contains(kWrappers, name) && shown.size() == 1) return shown[0];
  std::string out(name);
  if (shown.empty()) return out;
  out += '<';
  for (size_t i = 0; i < shown.size(); ++i) out += (i ? ", " : "") + shown[i];
  return out + '>';
}

// A template argument or a qualified name, compacted.
std::string Render(std::string_view raw, int depth, bool terse) {
  std::string_view text = TrimBlanks(raw);
  if (text.starts_with("const ")) text = TrimBlanks(text.substr(6));
  if (const std::string n = IntegerText(text); !n.empty()) return n;
  const std::vector<std::string_view> parts = ScopeParts(text);
  // A lambda or operator() is named by the function that holds it.
  size_t named = parts.size();
  while (named > 0 && IsUnnamed(TrimBlanks(parts[named - 1]))) --named;
  if (named == 0) return std::string(text);
  const std::string_view part = WithoutParams(TrimBlanks(parts[named - 1]));
  if (const auto id = ParseTemplateId(part); id && TrimBlanks(id->rest).empty()) {
    return RenderTemplate(id->name, id->args, depth, terse);
  }
  return std::string(part);
}

}  // namespace

std::string CompactKernelName(std::string_view name, bool terse) {
  // Triton, cuBLAS and other C-style names have nothing to drop.
  if (name.find_first_of("<(:") == std::string_view::npos) return std::string(name);
  const FunctionNameParts parts = SplitFunctionName(name);
  if (parts.qualified.empty()) return std::string(name);
  const std::string_view base = WithoutParams(LastComponent(parts.qualified));
  std::string head = Render(parts.qualified, 0, terse);
  if (head.empty()) head = std::string(base);
  if (parts.template_args.empty()) return head;
  // The kernel's own arguments: drop what Render put after a name already without template.
  const size_t angle = head.find('<');
  return RenderTemplate(angle == std::string::npos ? head : head.substr(0, angle),
                        parts.template_args, 0, terse);
}

}  // namespace flopspy::analyzers
