#include "flopspy/analyzers/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace flopspy::analyzers {
namespace {

constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";

bool IsOpen(char c) {
  return c == '<' || c == '(' || c == '{' || c == '[';
}
bool IsClose(char c) {
  return c == '>' || c == ')' || c == '}' || c == ']';
}

// Index of the bracket closing the one at `open`, counting every bracket kind as one depth (the
// names we read nest them properly); npos when it never closes.
size_t MatchForward(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (IsOpen(text[i])) {
      ++depth;
    } else if (IsClose(text[i])) {
      if (--depth == 0) return i;
      if (depth < 0) return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool IsMangledName(std::string_view name) {
  return name.size() > 2 && name.substr(0, 2) == "_Z";
}

std::string Demangle(std::string_view mangled) {
  if (!IsMangledName(mangled)) return std::string(mangled);
  const std::string owned(mangled);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(owned.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || out == nullptr) return owned;
  return std::string(out.get());
}

std::vector<std::string_view> SplitTopLevel(std::string_view list) {
  std::vector<std::string_view> items;
  list = TrimBlanks(list);
  if (list.empty()) return items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (IsOpen(c)) {
      ++depth;
    } else if (IsClose(c)) {
      // "->" and similar stray closers must not drive the depth negative and hide commas.
      if (depth > 0) --depth;
    } else if (c == ',' && depth == 0) {
      items.push_back(TrimBlanks(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  items.push_back(TrimBlanks(list.substr(start)));
  return items;
}

std::string_view LastComponent(std::string_view qualified) {
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < qualified.size(); ++i) {
    const char c = qualified[i];
    if (IsOpen(c)) {
      ++depth;
    } else if (IsClose(c)) {
      if (depth > 0) --depth;
    } else if (c == ':' && depth == 0 && i + 1 < qualified.size() && qualified[i + 1] == ':') {
      begin = i + 2;
      ++i;
    }
  }
  return qualified.substr(begin);
}

std::optional<TemplateId> ParseTemplateId(std::string_view text) {
  text = TrimBlanks(text);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, kAnonymousNamespace.size()) == kAnonymousNamespace) {
      i += kAnonymousNamespace.size() - 1;
      continue;
    }
    const char c = text[i];
    if (c == '(' || c == '{' || c == '[' || IsClose(c)) return std::nullopt;
    if (c != '<') continue;
    const size_t close = MatchForward(text, i);
    if (close == std::string_view::npos) return std::nullopt;
    TemplateId id;
    id.name = TrimBlanks(text.substr(0, i));
    id.args = SplitTopLevel(text.substr(i + 1, close - i - 1));
    id.rest = text.substr(close + 1);
    return id;
  }
  return std::nullopt;
}

FunctionNameParts SplitFunctionName(std::string_view demangled) {
  FunctionNameParts parts;
  std::string_view s = TrimBlanks(demangled);
  if (s.size() > 1 && s.back() == ']') {
    const size_t clone = s.rfind(" [clone ");
    if (clone != std::string_view::npos) s = TrimBlanks(s.substr(0, clone));
  }

  std::string_view head = s;
  if (!s.empty() && s.back() == ')') {
    // Only parentheses decide where the parameter list starts: "operator()()" and
    // "(anonymous namespace)" balance, and nothing else in a kernel name is a parenthesis.
    int depth = 0;
    size_t open = std::string_view::npos;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') {
        ++depth;
      } else if (s[i] == '(') {
        if (--depth == 0) {
          open = i;
          break;
        }
      }
    }
    if (open != std::string_view::npos && open > 0 &&
        s.substr(open, kAnonymousNamespace.size()) != kAnonymousNamespace) {
      head = TrimBlanks(s.substr(0, open));
      parts.params = SplitTopLevel(s.substr(open + 1, s.size() - open - 2));
      parts.has_params = true;
    }
  }

  // The qualified name starts after the last blank at depth zero; what precedes is the return
  // type ("void", "std::enable_if<!(false), void>::type").
  int depth = 0;
  size_t name_begin = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (IsOpen(c)) {
      ++depth;
    } else if (IsClose(c)) {
      if (depth > 0) --depth;
    } else if (c == ' ' && depth == 0) {
      name_begin = i + 1;
    }
  }
  parts.return_type = TrimBlanks(head.substr(0, name_begin));
  std::string_view qualified = head.substr(name_begin);
  // "foo [6]": a bracketed tail belongs to the name; it is not a name after a return type.
  if (qualified.starts_with('[')) {
    parts.return_type = {};
    qualified = head;
  }

  // The function's own template arguments: the depth-zero '<' whose '>' ends the name.
  if (!qualified.empty() && qualified.back() == '>') {
    depth = 0;
    size_t group_start = std::string_view::npos;
    for (size_t i = 0; i < qualified.size(); ++i) {
      const char c = qualified[i];
      if (IsOpen(c)) {
        if (depth == 0 && c == '<') group_start = i;
        ++depth;
      } else if (IsClose(c)) {
        if (depth > 0) --depth;
        if (depth == 0 && i + 1 == qualified.size() && c == '>' &&
            group_start != std::string_view::npos) {
          parts.template_args =
              SplitTopLevel(qualified.substr(group_start + 1, i - group_start - 1));
          qualified = TrimBlanks(qualified.substr(0, group_start));
          break;
        }
      }
    }
  }
  parts.qualified = qualified;
  parts.base = LastComponent(qualified);
  return parts;
}

std::optional<std::vector<std::string_view>> LastLambdaParams(std::string_view text) {
  constexpr std::string_view kLambda = "{lambda(";
  const size_t at = text.rfind(kLambda);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = at + kLambda.size() - 1;
  const size_t close = MatchForward(text, open);
  if (close == std::string_view::npos) return std::nullopt;
  return SplitTopLevel(text.substr(open + 1, close - open - 1));
}

}  // namespace flopspy::analyzers
