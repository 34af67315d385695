// T5's relative position buckets (focal/internal/relative_position_bucket.h) against the
// buckets of transformers' T5Attention._relative_position_bucket (modeling_t5.py, the
// same torch ops in tests/models/t5_reference.py, run once with Debian's python3-torch
// to give the tables below): T5's defaults (32 buckets, max_distance 128) and small
// tables whose buckets saturate within a few positions, both directions.
#include <doctest/doctest.h>

#include <vector>

#include "focal/internal/relative_position_bucket.h"

namespace {

struct Case {
  bool bidirectional;
  int32_t buckets, max_distance, step;  // distances step * (-20 .. 20)
  std::vector<int32_t> expected;
};

}  // namespace

TEST_CASE("relative position buckets match transformers' T5") {
  const Case cases[] = {
      {true, 32, 128, 7, {15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14, 13, 13, 13, 12, 12, 11, 10, 9, 7, 0,
                          23, 25, 26, 27, 28, 28, 29, 29, 29, 30, 30, 30, 31, 31, 31, 31, 31, 31, 31, 31}},
      {true, 8, 6, 1, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 1, 0,
                       5, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}},
      {false, 16, 10, 1, {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 12, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {false, 32, 128, 7, {31, 31, 31, 31, 30, 30, 29, 29, 28, 28, 27, 26, 25, 24, 23, 22, 20, 18, 14, 7, 0,
                           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.buckets);
    CAPTURE(c.bidirectional);
    REQUIRE(focal::relative_position_buckets_valid(c.buckets, c.max_distance, c.bidirectional));
    for (int32_t k = -20; k <= 20; ++k) {
      CAPTURE(k * c.step);
      CHECK(focal::relative_position_bucket(k * c.step, c.buckets, c.max_distance, c.bidirectional) ==
            c.expected[static_cast<size_t>(k + 20)]);
    }
    // Far beyond max_distance every distance shares the last bucket of its side.
    CHECK(focal::relative_position_bucket(-100000, c.buckets, c.max_distance, c.bidirectional) ==
          (c.bidirectional ? c.buckets / 2 - 1 : c.buckets - 1));
  }
}

TEST_CASE("relative position bucket options without an exact range or a log range are invalid") {
  CHECK_FALSE(focal::relative_position_buckets_valid(2, 128, true));  // one bucket a side
  CHECK_FALSE(focal::relative_position_buckets_valid(8, 2, true));    // max_distance within the exact 2
  CHECK_FALSE(focal::relative_position_buckets_valid(0, 128, false));
  CHECK(focal::relative_position_buckets_valid(4, 3, false));
}
