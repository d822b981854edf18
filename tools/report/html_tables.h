// Tables of the HTML report. Rows come in the model's order (GPU time, longest first), so the
// page reads right without script; the page's script sorts on a header click, by each cell's
// data-v (number) or data-s (text) when present, else its text.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace flopspy::tools::html {

struct Cell {
  std::string html;            // already escaped
  std::optional<double> sort;  // numeric sort key (data-v)
  std::string sort_text;       // text sort key (data-s), when the shown text is not it
  std::string title;           // tooltip (plain text)
  std::string cls;             // extra class
};
Cell Text(std::string_view text);                             // escaped text, sorted as text
Cell Number(std::optional<double> value, std::string shown);  // right-aligned, sorted by value

struct Column {
  std::string name;
  bool numeric = false;
  std::string title;  // what the column means
};

class HtmlTable {
 public:
  HtmlTable(std::string id, std::vector<Column> columns);
  void AddRow(std::string row_id, std::vector<Cell> cells, std::string row_class = "");
  size_t rows() const { return rows_.size(); }
  // At most `limit` rows; a line under the table says how many were left out.
  std::string Render(size_t limit = 1000) const;

 private:
  struct Row {
    std::string id, cls;
    std::vector<Cell> cells;
  };
  std::string id_;
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

// The trace's tables; `trace_index` makes row ids unique across traces ("t0-k3").
std::string KernelTable(const nlohmann::json& trace, size_t trace_index);
std::string LibraryTable(const nlohmann::json& trace, size_t trace_index);
std::string CopyTable(const nlohmann::json& trace, size_t trace_index);

// A table of any array of objects (sections this renderer does not know in detail): one column
// per scalar field, nested objects flattened to "a.b", arrays of scalars joined.
std::string GenericTable(const nlohmann::json& rows, const std::string& id);

}  // namespace flopspy::tools::html
