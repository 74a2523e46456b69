//===- JsonTest.cpp - Tests of the bundle's JSON reader and writer --------===//

#include "Json.h"

#include <gtest/gtest.h>

using tilec::json::Value;

namespace {

std::string parseError(const std::string &text) {
  Value value;
  std::string error;
  EXPECT_FALSE(tilec::json::parse(text, value, error)) << text;
  return error;
}

Value parseOk(const std::string &text) {
  Value value;
  std::string error;
  EXPECT_TRUE(tilec::json::parse(text, value, error)) << error;
  return value;
}

// Every kind of value parses, and integers stay exact at 64 bits.
TEST(Json, ParsesAllKinds) {
  Value root = parseOk(R"({"a": [1, -2, 3.5, true, false, null],
                           "big": 9223372036854775807,
                           "small": -9223372036854775808,
                           "s": "x\"y\\z\n\u00e9\ud83d\ude00"})");
  ASSERT_TRUE(root.isObject());
  const Value *array = root.find("a");
  ASSERT_TRUE(array && array->isArray());
  ASSERT_EQ(array->elements().size(), 6u);
  EXPECT_EQ(array->elements()[0].asInteger(), 1);
  EXPECT_EQ(array->elements()[1].asInteger(), -2);
  EXPECT_FALSE(array->elements()[2].isInteger());
  EXPECT_DOUBLE_EQ(array->elements()[2].asNumber(), 3.5);
  EXPECT_TRUE(array->elements()[3].asBool());
  EXPECT_FALSE(array->elements()[4].asBool());
  EXPECT_TRUE(array->elements()[5].isNull());
  EXPECT_EQ(root.find("big")->asInteger(), INT64_MAX);
  EXPECT_EQ(root.find("small")->asInteger(), INT64_MIN);
  EXPECT_EQ(root.find("s")->asString(), "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(root.find("missing"), nullptr);
}

// Errors carry the line and column of the problem.
TEST(Json, ReportsPositionOfErrors) {
  EXPECT_EQ(parseError("{\n  \"a\": 1,\n  \"b\" 2\n}"),
            "line 3, column 7: expected ':' after object key");
  EXPECT_EQ(parseError("[1, 2"), "line 1, column 6: expected ',' or ']' in "
                                 "array");
  EXPECT_EQ(parseError(""), "line 1, column 1: unexpected end of input, "
                            "expected a value");
  EXPECT_EQ(parseError("{} x"), "line 1, column 4: trailing characters after "
                                "the JSON value");
}

TEST(Json, RejectsMalformedInput) {
  EXPECT_EQ(parseError("{\"a\": 1, \"a\": 2}"),
            "line 1, column 10: duplicate key \"a\"");
  EXPECT_EQ(parseError("9223372036854775808"),
            "line 1, column 1: integer 9223372036854775808 does not fit in 64 "
            "bits");
  EXPECT_EQ(parseError("\"abc"), "line 1, column 5: unterminated string");
  EXPECT_EQ(parseError("\"\\q\""), "line 1, column 3: invalid escape '\\q'");
  EXPECT_EQ(parseError("\"\\ud800\""),
            "line 1, column 8: unpaired UTF-16 surrogate in \\u escape");
  EXPECT_EQ(parseError("\"a\tb\""), "line 1, column 3: control character in "
                                    "string");
  EXPECT_EQ(parseError("01"), "line 1, column 2: trailing characters after "
                              "the JSON value");
  EXPECT_EQ(parseError("1e999"), "line 1, column 1: number out of range");
  EXPECT_EQ(parseError("tru"), "line 1, column 1: unexpected character 't'");
  EXPECT_EQ(parseError("{1: 2}"), "line 1, column 2: expected a string key in "
                                  "object");
}

// Deep nesting is an error, not a stack overflow.
TEST(Json, BoundsNestingDepth) {
  std::string deep(100000, '[');
  EXPECT_EQ(parseError(deep), "line 1, column 66: nesting deeper than 64 "
                              "levels");
  std::string ok = std::string(60, '[') + std::string(60, ']');
  parseOk(ok);
}

// write() and parse() are inverses, and short scalar arrays stay inline.
TEST(Json, WriteRoundTrips) {
  Value shape = Value::array();
  shape.push(Value::integer(-1));
  shape.push(Value::integer(4096));
  Value root = Value::object();
  root.set("shape", shape);
  root.set("name", Value::string("a \"quoted\"\n\x01 name"));
  root.set("pi", Value::number(3.25));
  root.set("whole", Value::number(2.0));
  root.set("flag", Value::boolean(true));
  std::string text = tilec::json::write(root);
  EXPECT_NE(text.find("\"shape\": [-1, 4096]"), std::string::npos) << text;
  Value back = parseOk(text);
  EXPECT_EQ(back.find("name")->asString(), "a \"quoted\"\n\x01 name");
  EXPECT_DOUBLE_EQ(back.find("pi")->asNumber(), 3.25);
  EXPECT_FALSE(back.find("whole")->isInteger());
  EXPECT_EQ(back.find("shape")->elements()[1].asInteger(), 4096);
  EXPECT_EQ(tilec::json::write(back), text);
}

} // namespace
