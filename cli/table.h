// A plain-text table: left-aligned columns two spaces apart, a dashed rule
// under the header; the last column is not padded (it may be long).
#pragma once
#include <iosfwd>
#include <string>
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

}  // namespace cfsv::cli
