// Checkpoint readers against files written by PyTorch and NumPy (tests/data/
// make_checkpoints.py, run by ctest before this test), compared value by value with
// the expected values Python wrote as text; and the hostile corpus, each refused.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "readers/checkpoint.h"

using namespace focal::convert;

namespace {

std::string data_dir() {
  const char* dir = std::getenv("FOCAL_CHECKPOINT_DIR");
  return dir != nullptr ? dir : "checkpoints";
}

struct Expected {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

std::vector<Expected> read_expected(const std::string& file) {
  std::vector<Expected> all;
  std::ifstream in(data_dir() + "/" + file + ".expected.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    Expected e;
    words >> e.name >> e.dtype;
    std::string word;
    while (words >> word && word != ":") e.shape.push_back(std::stoll(word));
    double v;
    while (words >> v) e.values.push_back(v);
    all.push_back(e);
  }
  return all;
}

void check_matches(const std::string& file) {
  CAPTURE(file);
  auto checkpoint = read_checkpoint(data_dir() + "/" + file);
  REQUIRE_MESSAGE(checkpoint.ok(), checkpoint.status().message());
  const std::vector<Expected> expected = read_expected(file);
  REQUIRE(!expected.empty());
  CHECK(checkpoint->tensors.size() == expected.size());
  for (const Expected& e : expected) {
    CAPTURE(e.name);
    const CheckpointTensor* t = checkpoint->find(e.name);
    REQUIRE(t != nullptr);
    CHECK(t->shape == e.shape);
    const std::vector<float> got = t->to_f32();
    REQUIRE(got.size() == e.values.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == static_cast<float>(e.values[i]));  // exact
  }
}

void check_refused(const std::string& file, const char* text) {
  CAPTURE(file);
  auto checkpoint = read_checkpoint(data_dir() + "/" + file);
  REQUIRE(!checkpoint.ok());
  const std::string message = checkpoint.status().message();
  CAPTURE(message);
  CHECK(message.find(file) != std::string::npos);  // names the file
  CHECK(message.find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("readers: torch.save, safetensors, npz and npy match PyTorch's and NumPy's values") {
  check_matches("state_dict.pt");
  check_matches("state_dict.safetensors");
  check_matches("arrays.npz");
  check_matches("arrays_compressed.npz");
  check_matches("fortran.npy");
}

TEST_CASE("readers: dtypes and strided views come out right") {
  auto checkpoint = read_checkpoint(data_dir() + "/state_dict.pt");
  REQUIRE(checkpoint.ok());
  CHECK(checkpoint->find("half")->type == ElementType::kF16);
  CHECK(checkpoint->find("bfloat")->type == ElementType::kBF16);
  CHECK(checkpoint->find("ids")->type == ElementType::kI64);
  CHECK(checkpoint->find("transposed")->shape == std::vector<int64_t>{6, 4});
  CHECK(checkpoint->find("slice")->shape == std::vector<int64_t>{2, 3});
}

TEST_CASE("readers: hostile and broken files are refused with a clear message") {
  check_refused("pickle_os_system.pt", "refusing global posix.system");
  check_refused("pickle_eval.pt", "refusing global __builtin__.eval");  // protocol 2 name
  check_refused("pickle_cycle.pt", "holds no tensors");
  check_refused("legacy.pt", "legacy (non-zip) torch.save");
  check_refused("truncated.pt", "zip");
  check_refused("safetensors_huge_header", "header length");
  check_refused("safetensors_bad_dtype", "unsupported dtype \"C64\"");
  check_refused("safetensors_shape_mismatch", "needs 36");
  check_refused("safetensors_out_of_range", "lies outside");
  check_refused("npy_bad_shape.npy", "its header needs 108");
  check_refused("npz_truncated.npz", "zip");
  check_refused("no_such_file", "cannot open");
}
