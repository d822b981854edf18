#include "html_check.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace flopspy::testing {
namespace {

const std::set<std::string> kVoid = {"area",  "base", "br",   "col",   "embed",  "hr",    "img",
                                     "input", "link", "meta", "param", "source", "track", "wbr"};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Decodes entities; `bad` is set when an '&' starts no entity.
std::string Decode(const std::string& s, bool& bad) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string::npos || semi - i > 10) {
      bad = true;
      out += '&';
      continue;
    }
    const std::string entity = s.substr(i + 1, semi - i - 1);
    if (entity == "amp") {
      out += '&';
    } else if (entity == "lt") {
      out += '<';
    } else if (entity == "gt") {
      out += '>';
    } else if (entity == "quot") {
      out += '"';
    } else if (entity == "apos") {
      out += '\'';
    } else if (entity == "nbsp") {
      out += "\xc2\xa0";
    } else if (entity.size() > 1 && entity[0] == '#') {
      const long code =
          entity[1] == 'x' ? std::stol(entity.substr(2), nullptr, 16) : std::stol(entity.substr(1));
      if (code < 0x80) {
        out += static_cast<char>(code);
      } else {
        out += '?';
      }
    } else {
      bad = true;
      out += '&';
      continue;
    }
    i = semi;
  }
  return out;
}

}  // namespace

bool HtmlNode::HasClass(const std::string& cls) const {
  std::istringstream words(Attr("class"));
  std::string w;
  while (words >> w) {
    if (w == cls) return true;
  }
  return false;
}

std::string HtmlNode::Attr(const std::string& n) const {
  const auto it = attrs.find(n);
  return it == attrs.end() ? "" : it->second;
}

std::string HtmlNode::Text() const {
  if (name == "#text") return text;
  std::string s;
  for (const auto& c : children) s += c->Text();
  return s;
}

HtmlDocument ParseHtml(const std::string& html, bool strict) {
  HtmlDocument doc;
  doc.root = std::make_unique<HtmlNode>();
  doc.root->name = "#document";
  std::vector<HtmlNode*> stack = {doc.root.get()};
  const auto problem = [&](size_t at, const std::string& what) {
    if (doc.problems.size() < 20) {
      doc.problems.push_back("at byte " + std::to_string(at) + ": " + what);
    }
  };
  const auto add_text = [&](const std::string& raw, size_t at) {
    if (raw.empty()) return;
    bool bad = false;
    auto node = std::make_unique<HtmlNode>();
    node->name = "#text";
    node->text = Decode(raw, bad);
    if (bad && strict) problem(at, "'&' that starts no entity in text");
    if (raw.find('>') != std::string::npos && strict) problem(at, "raw '>' in text");
    stack.back()->children.push_back(std::move(node));
  };
  size_t i = 0;
  size_t text_start = 0;
  while (i < html.size()) {
    if (html[i] != '<') {
      ++i;
      continue;
    }
    add_text(html.substr(text_start, i - text_start), text_start);
    if (html.compare(i, 4, "<!--") == 0) {
      const size_t end = html.find("-->", i);
      if (end == std::string::npos) {
        problem(i, "comment never closed");
        break;
      }
      i = text_start = end + 3;
      continue;
    }
    if (html.compare(i, 2, "<!") == 0) {
      i = text_start = html.find('>', i) + 1;
      continue;
    }
    const bool closing = i + 1 < html.size() && html[i + 1] == '/';
    size_t p = i + (closing ? 2 : 1);
    if (p >= html.size() || !std::isalpha(static_cast<unsigned char>(html[p]))) {
      problem(i, "raw '<' in text");
      text_start = i;
      ++i;
      continue;
    }
    size_t name_end = p;
    while (name_end < html.size() && (std::isalnum(static_cast<unsigned char>(html[name_end])) ||
                                      html[name_end] == '-' || html[name_end] == ':')) {
      ++name_end;
    }
    const std::string name = Lower(html.substr(p, name_end - p));
    p = name_end;
    if (closing) {
      const size_t gt = html.find('>', p);
      if (gt == std::string::npos) {
        problem(i, "end tag never closed");
        break;
      }
      if (stack.size() > 1 && stack.back()->name == name) {
        stack.pop_back();
      } else {
        problem(i, "</" + name + "> does not close <" + stack.back()->name + ">");
        // Recover: pop to the matching element if there is one.
        const auto it = std::find_if(stack.rbegin(), stack.rend(),
                                     [&](const HtmlNode* n) { return n->name == name; });
        if (it != stack.rend()) stack.resize(static_cast<size_t>(stack.rend() - it) - 1);
      }
      i = text_start = gt + 1;
      continue;
    }
    auto node = std::make_unique<HtmlNode>();
    node->name = name;
    bool self_closing = false;
    // Attributes.
    while (p < html.size()) {
      while (p < html.size() && std::isspace(static_cast<unsigned char>(html[p]))) ++p;
      if (p >= html.size()) break;
      if (html[p] == '>') break;
      if (html.compare(p, 2, "/>") == 0) {
        self_closing = true;
        ++p;
        break;
      }
      size_t a = p;
      while (a < html.size() && !std::isspace(static_cast<unsigned char>(html[a])) &&
             html[a] != '=' && html[a] != '>' && html[a] != '/') {
        ++a;
      }
      const std::string attr = Lower(html.substr(p, a - p));
      if (attr.empty()) {
        problem(p, "bad attribute syntax in <" + name + ">");
        ++p;
        continue;
      }
      p = a;
      std::string value;
      if (p < html.size() && html[p] == '=') {
        ++p;
        if (p < html.size() && (html[p] == '"' || html[p] == '\'')) {
          const char quote = html[p];
          const size_t close = html.find(quote, p + 1);
          if (close == std::string::npos) {
            problem(p, "attribute value never closed");
            break;
          }
          const std::string raw = html.substr(p + 1, close - p - 1);
          bool bad = false;
          value = Decode(raw, bad);
          if (strict && bad) problem(p, "'&' that starts no entity in attribute " + attr);
          if (strict && raw.find_first_of("<>") != std::string::npos) {
            problem(p, "raw '<' or '>' in attribute " + attr);
          }
          p = close + 1;
        } else {
          if (strict) problem(p, "unquoted attribute " + attr);
          size_t e = p;
          while (e < html.size() && !std::isspace(static_cast<unsigned char>(html[e])) &&
                 html[e] != '>') {
            ++e;
          }
          value = html.substr(p, e - p);
          p = e;
        }
      }
      if (node->attrs.contains(attr)) problem(a, "attribute " + attr + " twice");
      node->attrs[attr] = value;
    }
    if (p >= html.size()) {
      problem(i, "tag never closed");
      break;
    }
    i = p + 1;  // past '>'
    HtmlNode* raw = node.get();
    stack.back()->children.push_back(std::move(node));
    if (name == "script" || name == "style") {
      const std::string end = "</" + name;
      const size_t close = html.find(end, i);
      if (close == std::string::npos) {
        problem(i, "<" + name + "> never closed");
        break;
      }
      auto text = std::make_unique<HtmlNode>();
      text->name = "#text";
      text->text = html.substr(i, close - i);
      raw->children.push_back(std::move(text));
      i = html.find('>', close) + 1;
      text_start = i;
      continue;
    }
    if (!self_closing && !kVoid.contains(name)) stack.push_back(raw);
    text_start = i;
  }
  add_text(html.substr(std::min(text_start, html.size())), text_start);
  for (size_t k = 1; k < stack.size(); ++k) {
    if (stack[k]->name != "html" && stack[k]->name != "body" && stack[k]->name != "head") {
      problem(html.size(), "<" + stack[k]->name + "> never closed");
    }
  }
  return doc;
}

std::vector<const HtmlNode*> ByTag(const HtmlNode& node, const std::string& tag,
                                   const std::string& cls) {
  std::vector<const HtmlNode*> out;
  Collect(
      node, [&](const HtmlNode& n) { return n.name == tag && (cls.empty() || n.HasClass(cls)); },
      out);
  return out;
}

const HtmlNode* ById(const HtmlNode& node, const std::string& id) {
  std::vector<const HtmlNode*> out;
  Collect(
      node, [&](const HtmlNode& n) { return n.Attr("id") == id; }, out);
  return out.empty() ? nullptr : out.front();
}

}  // namespace flopspy::testing
