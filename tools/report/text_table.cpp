#include "report/text_table.h"

#include <algorithm>

#include "flopspy/platform/terminal_text.h"
#include "report/format.h"

namespace flopspy::tools {

std::string Truncate(const std::string& raw, size_t width) {
  const std::string text = platform::EscapeControls(raw);
  if (DisplayWidth(text) <= width) return text;
  if (width <= 3) return text.substr(0, width);
  std::string out;
  size_t shown = 0;
  for (char c : text) {
    if ((c & 0xC0) != 0x80) {
      if (shown == width - 3) break;
      ++shown;
    }
    out += c;
  }
  return out + "...";
}

void TextTable::AddDetailText(std::string_view text, std::string_view first,
                              std::string_view rest) {
  const size_t width = width_ > detail_indent() ? width_ - detail_indent() : 8;
  const std::string lines = Paragraph(text, first, rest, width);
  for (size_t start = 0; start < lines.size();) {
    const size_t end = lines.find('\n', start);
    AddDetail(lines.substr(start, end - start));
    start = end + 1;
  }
}

void TextTable::Print(std::ostream& out) const {
  // Cells may hold names from a trace: control characters made visible before measuring.
  std::vector<std::vector<std::string>> shown_rows;
  for (const auto& row : rows_) {
    std::vector<std::string>& shown = shown_rows.emplace_back();
    for (const std::string& cell : row.cells) shown.push_back(platform::EscapeControls(cell));
  }
  std::vector<size_t> widths(columns_.size(), 0);
  for (size_t c = 0; c < columns_.size(); ++c) widths[c] = DisplayWidth(columns_[c].header);
  for (const auto& row : shown_rows) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  }
  // The last column gets what remains of the line.
  size_t used = indent_;
  for (size_t c = 0; c + 1 < widths.size(); ++c) used += widths[c] + 2;
  if (!widths.empty()) widths.back() = used < width_ ? std::min(widths.back(), width_ - used) : 8;

  const auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line(indent_, ' ');
    std::string overflow;  // the last cell, when it goes on its own line
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::string cell = c < cells.size() ? cells[c] : "";
      if (wrap_last_ && c + 1 == columns_.size() && DisplayWidth(cell) > widths[c]) {
        overflow = std::move(cell);
        cell.clear();
      }
      if (c + 1 == columns_.size()) cell = Truncate(cell, widths[c]);
      const size_t pad = widths[c] > DisplayWidth(cell) ? widths[c] - DisplayWidth(cell) : 0;
      const bool last = c + 1 == columns_.size();
      if (columns_[c].align == Align::kRight) {
        line += std::string(pad, ' ') + cell;
      } else {
        line += cell + (last ? "" : std::string(pad, ' '));
      }
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
    const size_t indent = detail_indent();
    const auto detail = [&out, indent, this](const std::string& text) {
      out << std::string(indent, ' ') << Truncate(text, width_ > indent ? width_ - indent : 8)
          << '\n';
    };
    if (!overflow.empty()) detail(overflow);
    return detail;
  };
  std::vector<std::string> header;
  for (const auto& c : columns_) header.push_back(c.header);
  print_row(header);
  for (size_t r = 0; r < rows_.size(); ++r) {
    const auto detail = print_row(shown_rows[r]);
    for (const auto& line : rows_[r].details) detail(line);  // Truncate escapes
  }
}

}  // namespace flopspy::tools
