// A small HTML reader for the tests: enough of HTML to check the report's structure (tags that
// open and close in order, escaped text, quoted attributes) and to query its elements, without
// a browser. Not a general HTML parser: it knows void elements, raw-text elements (script,
// style) and self-closing SVG tags, which is all the report and Chromium's DOM dump use.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flopspy::testing {

struct HtmlNode {
  std::string name;                          // tag name, lower case; "#text" for text
  std::map<std::string, std::string> attrs;  // decoded values
  std::string text;                          // decoded, for #text nodes
  std::vector<std::unique_ptr<HtmlNode>> children;

  bool HasClass(const std::string& cls) const;
  std::string Attr(const std::string& name) const;  // "" when absent
  std::string Text() const;                         // all text below, concatenated
};

struct HtmlDocument {
  std::unique_ptr<HtmlNode> root;
  std::vector<std::string> problems;  // empty when well formed
};

// `strict`: also refuse a raw '<' or '>' in attribute values and an '&' that starts no entity
// (the report escapes all of them; browsers' serialisations do not escape '<' in attributes).
HtmlDocument ParseHtml(const std::string& html, bool strict = true);

// Every element below `node` (depth first, document order) for which `match` is true.
template <class Match>
void Collect(const HtmlNode& node, const Match& match, std::vector<const HtmlNode*>& out) {
  for (const auto& c : node.children) {
    if (match(*c)) out.push_back(c.get());
    Collect(*c, match, out);
  }
}
std::vector<const HtmlNode*> ByTag(const HtmlNode& node, const std::string& tag,
                                   const std::string& cls = "");
const HtmlNode* ById(const HtmlNode& node, const std::string& id);

}  // namespace flopspy::testing
