// Plain text: a table with left-aligned columns two spaces apart, a dashed
// rule under the header, the last column not padded (it may be long); and
// indented multi-line text.
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace cfsv::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  // Missing cells print empty; extra cells are an error (asserted).
  Table& row(std::vector<std::string> cells);
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// `text` with `indent` before each of its lines, each line ending in '\n'.
std::string indented(std::string_view text, std::string_view indent);

}  // namespace cfsv::cli
