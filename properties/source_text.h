// Whole files as text, for tests that read the source tree (docs/ held to the
// code's tables, regressions/) or a file a test wrote. Empty when unreadable.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace cfsv::testing_files {

inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// `rel` from the project's root, e.g. "docs/model.md".
inline std::string source_text(const std::string& rel) {
  return file_text(std::string(CFSV_REGRESSIONS_DIR) + "/../" + rel);
}

}  // namespace cfsv::testing_files
