// Aligned text tables that fit a terminal width: every column is as wide as its widest cell,
// and the last column (names, sentences) is cut to what is left.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace flopspy::tools {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kRight;
  };

  explicit TextTable(std::vector<Column> columns, size_t width = 100, size_t indent = 2)
      : columns_(std::move(columns)), width_(width), indent_(indent) {}

  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // A last-column cell too long for what remains of the line goes on a line of its own under
  // its row (indented, cut only at the full width) instead of being cut short: for names.
  void WrapLastColumn() { wrap_last_ = true; }
  bool empty() const { return rows_.empty(); }
  void Print(std::ostream& out) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  size_t width_;
  size_t indent_;
  bool wrap_last_ = false;
};

// Cuts `text` to at most `width` characters (UTF-8 aware), marking the cut with "...".
std::string Truncate(const std::string& text, size_t width);

}  // namespace flopspy::tools
