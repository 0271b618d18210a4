#include "cli/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace cfsv::cli {
namespace {

TEST(Json, QuoteEscapes) {
  EXPECT_EQ(json_quote(""), R"("")");
  EXPECT_EQ(json_quote("plain / text"), R"("plain / text")");
  EXPECT_EQ(json_quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_quote("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(json_quote(std::string("\x01\x1f\x00", 3)), R"("\u0001\u001f\u0000")");
  EXPECT_EQ(json_quote("\x7f h\xc3\xa9"), "\"\x7f h\xc3\xa9\"");  // DEL and UTF-8 pass through
}

TEST(Json, CompactNesting) {
  std::ostringstream s;
  JsonWriter j(s, 0);
  j.begin_object().field("a", 1).key("b").begin_array().value("x").value(true).null().begin_object().end_object();
  j.begin_array().end_array().end_array().field("c", std::string("y")).field("d", uint64_t{18446744073709551615u});
  j.field("e", -3).end_object();
  EXPECT_EQ(s.str(), R"({"a":1,"b":["x",true,null,{},[]],"c":"y","d":18446744073709551615,"e":-3})");
}

TEST(Json, PrettyIndents) {
  std::ostringstream s;
  JsonWriter j(s);
  j.begin_object().field("a", 1).key("b").begin_array().value(false).end_array().key("c").begin_object();
  j.end_object().end_object();
  EXPECT_EQ(s.str(), "{\n  \"a\": 1,\n  \"b\": [\n    false\n  ],\n  \"c\": {}\n}");
}

TEST(Json, Doubles) {
  std::ostringstream s;
  JsonWriter j(s, 0);
  j.begin_array().value(0.4).value(2.0).value(1e-7).value(NAN).value(INFINITY).end_array();
  EXPECT_EQ(s.str(), "[0.4,2,1e-07,null,null]");
}

}  // namespace
}  // namespace cfsv::cli
