#include "cli/json.h"

#include <charconv>
#include <cmath>
#include <ostream>

namespace cfsv::cli {

std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string r = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\r': r += "\\r"; break;
      case '\t': r += "\\t"; break;
      case '\b': r += "\\b"; break;
      case '\f': r += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          r += "\\u00";
          r += kHex[c >> 4];
          r += kHex[c & 15];
        } else {
          r += c;
        }
    }
  }
  return r + "\"";
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_items_.empty()) return;
  if (has_items_.back()) out_ << ',';
  has_items_.back() = true;
  if (indent_) out_ << '\n' << std::string(has_items_.size() * indent_, ' ');
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  out_ << json_quote(k) << (indent_ ? ": " : ":");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view text) {
  separate();
  out_ << text;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) { return raw(json_quote(s)); }

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest round-trip form
  return raw(std::string_view(buf, r.ptr - buf));
}

JsonWriter& JsonWriter::open(char c) {
  separate();
  out_ << c;
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char c) {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had && indent_) out_ << '\n' << std::string(has_items_.size() * indent_, ' ');
  out_ << c;
  return *this;
}

}  // namespace cfsv::cli
