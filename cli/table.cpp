#include "cli/table.h"

#include <algorithm>
#include <cassert>
#include <ostream>

namespace cfsv::cli {

Table& Table::row(std::vector<std::string> cells) {
  assert(cells.size() <= header_.size());
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      s += cells[c];
      if (c + 1 < cells.size()) s += std::string(width[c] - cells[c].size() + 2, ' ');
    }
    s.erase(s.find_last_not_of(' ') + 1);
    out << s << '\n';
  };
  line(header_);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.emplace_back(w, '-');
  line(rule);
  for (const auto& r : rows_) line(r);
}

std::string indented(std::string_view text, std::string_view indent) {
  std::string out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    out.append(indent).append(text.substr(0, nl)).push_back('\n');
    text = nl == text.npos ? std::string_view{} : text.substr(nl + 1);
  }
  return out;
}

}  // namespace cfsv::cli
