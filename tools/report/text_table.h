// Aligned text tables that fit a terminal width: every column is as wide as its widest cell,
// and the last column (names, sentences) is cut to what is left.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
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

  void AddRow(std::vector<std::string> cells) { rows_.push_back({std::move(cells), {}}); }
  // A line printed under the last row added (a name, a roof, a diagnostic), indented four
  // columns more than the table and cut at the table's width.
  void AddDetail(std::string line) {
    if (!rows_.empty()) rows_.back().details.push_back(std::move(line));
  }
  // A last-column cell too long for what remains of the line goes on a line of its own under
  // its row (indented, cut only at the full width) instead of being cut short: for names.
  void WrapLastColumn() { wrap_last_ = true; }
  // `text` wrapped into detail lines of the last row: the first after `first`, the others
  // after `rest`.
  void AddDetailText(std::string_view text, std::string_view first = "",
                     std::string_view rest = "  ");
  bool empty() const { return rows_.empty(); }
  // Columns left of a detail line: the table's indent and four more.
  size_t detail_indent() const { return indent_ + 4; }
  void Print(std::ostream& out) const;

 private:
  std::vector<Column> columns_;
  struct Row {
    std::vector<std::string> cells;
    std::vector<std::string> details;
  };
  std::vector<Row> rows_;
  size_t width_;
  size_t indent_;
  bool wrap_last_ = false;
};

// Cuts `text` to at most `width` characters (UTF-8 aware), marking the cut with "...", after
// making its control characters visible (platform::EscapeControls), as Print does for every
// cell and detail line.
std::string Truncate(const std::string& text, size_t width);

}  // namespace flopspy::tools
