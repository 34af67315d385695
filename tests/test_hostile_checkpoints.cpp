// Hand-forged hostile checkpoints (tests/data/make_hostile_checkpoints.py, run by ctest
// before this test), one per hole found in the readers: each is refused with a
// message naming the file and the problem, without reading out of bounds or allocating
// what the file only claims.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "readers/checkpoint.h"

using namespace focal::convert;

namespace {

std::string hostile_dir() {
  const char* dir = std::getenv("FOCAL_HOSTILE_CHECKPOINT_DIR");
  return dir != nullptr ? dir : "hostile_checkpoints";
}

void check_refused(const std::string& file, const char* text) {
  CAPTURE(file);
  auto checkpoint = read_checkpoint(hostile_dir() + "/" + file);
  REQUIRE(!checkpoint.ok());
  const std::string message = checkpoint.status().message();
  CAPTURE(message);
  CHECK(message.find(file) != std::string::npos);  // names the file
  CHECK(message.find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("hostile: torch.save strides that overflow the bounds check are refused") {
  check_refused("torch_stride_overflow.pt", "tensor 'w' (offset 0) addresses elements outside its storage 0 of 100");
}

TEST_CASE("hostile: torch.save offsets that wrap to before the storage are refused") {
  check_refused("torch_offset_wraps.pt", "addresses elements outside its storage 0 of 100 elements");
}

TEST_CASE("hostile: a pickle of shared nested dicts is bounded by the reference-expansion budget") {
  check_refused("torch_shared_dicts.pt", "the budget for reference expansion");
}

TEST_CASE("hostile: views repeating a small storage are bounded by the tensor-bytes budget") {
  check_refused("torch_repeated_views.pt", "tensor 'w' needs 4294967296 bytes, over the budget for tensor bytes");
}

TEST_CASE("hostile: a zip size field claiming 2 GiB is refused before allocating, naming the lie") {
  check_refused("torch_lying_size.pt", "stored member archive/data/0 claims 2147483644 bytes but holds 4");
}

TEST_CASE("hostile: a zip bomb is refused by the inflation budget before inflating") {
  check_refused("torch_zip_bomb.pt", "member archive/data/0 needs 67108864 bytes, over the budget for inflated zip members");
}

TEST_CASE("hostile: a pickle of millions of cheap values is bounded by the pickle-value budget") {
  check_refused("torch_many_values.pt", "more than 2097152 values (the budget for pickle values)");
}

TEST_CASE("hostile: safetensors with a duplicate key is refused") {
  check_refused("safetensors_duplicate_key", "header names key 'w' twice");
}

TEST_CASE("hostile: safetensors with overlapping data_offsets is refused") {
  check_refused("safetensors_overlap", "tensor 'b' data [4, 12) overlaps tensor 'a'");
}

TEST_CASE("hostile: safetensors data bytes that belong to no tensor are refused") {
  check_refused("safetensors_gap", "data bytes [8, 12) belong to no tensor");
}

TEST_CASE("hostile: a safetensors file is mapped, its tensors are views that read the same values") {
  // The good corpus file through the mapped path: values equal an owned copy's.
  const char* dir = std::getenv("FOCAL_CHECKPOINT_DIR");
  REQUIRE(dir != nullptr);
  auto checkpoint = read_checkpoint(std::string(dir) + "/state_dict.safetensors");
  REQUIRE(checkpoint.ok());
  for (const CheckpointTensor& t : checkpoint->tensors) {
    CAPTURE(t.name);
    CHECK(t.view != nullptr);
    CheckpointTensor copy = t;
    copy.bytes.assign(t.data(), t.data() + t.byte_size());
    copy.view = nullptr;
    const std::vector<float> before = t.to_f32();
    t.release_pages();  // pages come back from the file
    CHECK(t.to_f32() == before);
    CHECK(copy.to_f32() == before);
  }
}
