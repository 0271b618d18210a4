// A small streaming JSON writer for cfsv's --json outputs: it places commas,
// indentation and quotes; strings are escaped per RFC 8259 (UTF-8 passes
// through, control characters become \n, \t, ... or \u00XX).
#pragma once
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace cfsv::cli {

// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

class JsonWriter {
 public:
  // indent 0: compact, one line.
  explicit JsonWriter(std::ostream& out, int indent = 2) : out_(out), indent_(indent) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) { return raw(b ? "true" : "false"); }
  JsonWriter& value(double d);  // null when not finite
  template <std::integral T> JsonWriter& value(T i) requires(!std::same_as<T, bool>) {
    return raw(std::to_string(i));
  }
  JsonWriter& null() { return raw("null"); }

  // key(k).value(v)
  template <class T> JsonWriter& field(std::string_view k, const T& v) { return key(k).value(v); }

 private:
  JsonWriter& open(char c);
  JsonWriter& close(char c);
  JsonWriter& raw(std::string_view text);
  void separate();  // the comma and newline before a value or key

  std::ostream& out_;
  int indent_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

}  // namespace cfsv::cli
