// Integers from untrusted JSON: in range they read, out of range or fractional they are
// an error naming the field (never nlohmann's unchecked cast), also through a spec.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "json/json_integer.h"
#include "model_writer.h"
#include "spec/spec_builder.h"

using focal::convert::json_int;
using focal::convert::json_integer;
using focal::convert::json_integer_or;
using focal::convert::JsonFieldError;
using nlohmann::json;

TEST_CASE("json_integer: integers and integral floats within bounds read as they are") {
  CHECK(json_integer(json(42), "n") == 42);
  CHECK(json_integer(json(-7), "n") == -7);
  CHECK(json_integer(json(3.0), "n") == 3);
  CHECK(json_integer(json::parse("9223372036854775807"), "n") == INT64_MAX);
  CHECK(json_integer(json(-9223372036854775807.0 - 1.0), "n") == INT64_MIN);
  CHECK(json_integer_or(json::object(), "n", 5) == 5);
  CHECK(json_integer_or(json{{"n", nullptr}}, "n", 5) == 5);
  CHECK(json_integer_or(json{{"n", 6}}, "n", 5) == 6);
  CHECK(json_int(json(2147483647), "n") == 2147483647);
}

TEST_CASE("json_integer: out of range, fractional, non-finite or not a number is an error naming the field") {
  CHECK_THROWS_WITH_AS(json_integer(json(5.55556e33), "heads"),
                       doctest::Contains("'heads' must be an integer"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json(-1e300), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json(9223372036854775808.0), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json::parse("18446744073709551615"), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json(2.5), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json(std::numeric_limits<double>::quiet_NaN()), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json("4"), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json(0), "n", 1), JsonFieldError);
  CHECK_THROWS_AS(json_integer(json(11), "n", 1, 10), JsonFieldError);
  CHECK_THROWS_AS(json_int(json(2147483648LL), "n"), JsonFieldError);
  CHECK_THROWS_AS(json_integer_or(json{{"n", 1.5}}, "n", 5), JsonFieldError);
}

TEST_CASE("spec: an attention layer with a float head count far past int is a status naming the layer") {
  const json spec = json::parse(R"({
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 8]}],
    "layers": [{"op": "attention", "name": "attn", "input": "x", "heads": 5.55556e33,
                "q": "wq", "k": "wk", "v": "wv", "out": "wo"}],
    "outputs": ["attn"]})");
  focal::ModelWriter writer;
  auto weights = focal::convert::WeightSource::random(1);
  focal::convert::GraphBuilder builder(writer, weights);
  focal::convert::PresetOptions options;
  options.max_seq = 8;
  const focal::Status status = focal::convert::build_from_spec(spec, options, builder);
  REQUIRE_FALSE(status.ok());
  CHECK(std::string(status.message()).find("layer 0 'attn': 'heads' must be an integer") != std::string::npos);
}

namespace {

focal::Status build_spec(const json& spec) {
  focal::ModelWriter writer;
  auto weights = focal::convert::WeightSource::random(1);
  focal::convert::GraphBuilder builder(writer, weights);
  focal::convert::PresetOptions options;
  options.max_seq = 8;
  return focal::convert::build_from_spec(spec, options, builder);
}

json repeated_softmax(const std::string& repeat, const std::string& inner_repeat = "") {
  const std::string layer = R"({"op": "softmax", "name": "s{i}", "input": "x"})";
  const std::string layers = inner_repeat.empty() ? layer : R"({"repeat": )" + inner_repeat + R"(, "layers": [)" + layer + "]}";
  return json::parse(R"({"inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 8]}],
                         "layers": [{"repeat": )" + repeat + R"(, "layers": [)" + layers + R"(]}],
                         "outputs": []})");
}

}  // namespace

TEST_CASE("hostile: a spec repeating 2000000000 times is refused by the expansion budget, not bad_alloc") {
  const focal::Status status = build_spec(repeated_softmax("2000000000"));
  REQUIRE_FALSE(status.ok());
  CHECK(std::string(status.message()).find("'repeat' must be an integer in [0, 65536]") != std::string::npos);
}

TEST_CASE("hostile: nested repeats multiplying past 65536 layers are refused by the expansion budget") {
  const focal::Status status = build_spec(repeated_softmax("65536", "65536"));
  REQUIRE_FALSE(status.ok());
  const std::string message = status.message();
  CAPTURE(message);
  CHECK(message.find("the spec's expansion budget") != std::string::npos);
}
