// `--fit`'s part (converter/src/fit/fit_budget.h): sizes in bytes, K and M, the reserves'
// defaults and every malformed part refused with the item at fault.
#include <doctest/doctest.h>

#include <string>

#include "fit/fit_budget.h"

using namespace focal;

TEST_CASE("--fit: sizes in bytes, K (KiB) and M (MiB), reserves defaulted or given") {
  const Result<convert::FitBudget> b = convert::parse_fit_budget("ram=64K,flash=1M");
  REQUIRE(b.ok());
  CHECK(b->ram == 65536);
  CHECK(b->flash == 1048576);
  CHECK(convert::describe(*b) == "ram=65536,flash=1048576,stack=8192,data=1024,engine=65536,app=16384,int4=no");
  const Result<convert::FitBudget> given =
      convert::parse_fit_budget("flash=300000,ram=20KiB,stack=2k,data=512,engine=48K,app=0,int4=yes");
  REQUIRE(given.ok());
  CHECK(convert::describe(*given) == "ram=20480,flash=300000,stack=2048,data=512,engine=49152,app=0,int4=yes");
}

TEST_CASE("--fit: a malformed part is refused, naming the item") {
  const struct {
    const char* text;
    const char* words;
  } cases[] = {
      {"", "needs the part's RAM and flash"},
      {"ram=64K", "needs the part's RAM and flash"},
      {"ram=0,flash=1M", "needs the part's RAM and flash"},
      {"ram=64K,,flash=1M", "'': expected KEY=VALUE"},
      {"ram=K,flash=1M", "'ram=K': a size is bytes"},
      {"ram=64G,flash=1M", "'ram=64G': a size is bytes"},
      {"ram=-1,flash=1M", "'ram=-1': a size is bytes"},
      {"ram=99999999999999999999999,flash=1M", "larger than 1 TiB"},
      {"ram=1048577M,flash=1M", "larger than 1 TiB"},
      {"ram=64K,flash=1M,int4=maybe", "int4 is yes or no"},
      {"ram=64K,flash=1M,Ram=1", "'Ram=1': unknown key"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    const Result<convert::FitBudget> b = convert::parse_fit_budget(c.text);
    REQUIRE_FALSE(b.ok());
    CHECK(std::string(b.status().message()).find(c.words) != std::string::npos);
  }
}
