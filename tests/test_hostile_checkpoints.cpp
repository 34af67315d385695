// Hand-forged hostile checkpoints (tests/data/make_hostile_checkpoints.py, run by ctest
// before this test), one per hole found in the readers: each is refused with a
// message naming the file and the problem, without reading out of bounds or allocating
// what the file only claims.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

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

// Issue 32 (1): libhdf5 follows external storage, virtual datasets and filter plugins to
// other local files and libraries; the reader refuses each by name before reading data.
TEST_CASE("hostile hdf5: external storage naming a local file by absolute path is refused before reading") {
  check_refused("hdf5_external_absolute.h5",
                "dataset 'model_weights/dense/dense/kernel:0' keeps its data in 1 external file (HDF5 external "
                "storage)");
}

TEST_CASE("hostile hdf5: external storage naming '../secret' is refused before reading") {
  check_refused("hdf5_external_relative.h5", "keeps its data in 1 external file");
}

TEST_CASE("hostile hdf5: external storage naming a FIFO is refused, not waited on") {
  check_refused("hdf5_external_fifo.h5", "keeps its data in 1 external file");
}

TEST_CASE("hostile hdf5: a .keras archive whose weights use external storage is refused") {
  check_refused("hdf5_external.keras", "model.weights.h5: dataset 'model_weights/dense/dense/kernel:0' keeps");
}

TEST_CASE("hostile hdf5: a virtual dataset mapping another HDF5 file is refused") {
  check_refused("hdf5_virtual.h5", "dataset 'model_weights/dense/dense/kernel:0' is a virtual dataset");
}

TEST_CASE("hostile hdf5: a filter that is not built into libhdf5 is refused, so no plugin is loaded") {
  check_refused("hdf5_filter_plugin.h5", "uses HDF5 filter 32000 (lzf)");
}

// Issue 32 (3): one deflated chunk far larger than its dataset inflated past the budget.
TEST_CASE("hostile hdf5: a chunk far larger than its dataset is refused before it is inflated") {
  check_refused("hdf5_chunk_bomb.h5",
                "dataset 'model_weights/dense/dense/kernel:0' of 8 elements is stored in chunks of 67108864");
}

TEST_CASE("hostile hdf5: chunked data through the built-in deflate, shuffle and fletcher32 filters reads") {
  auto checkpoint = read_checkpoint(hostile_dir() + "/hdf5_builtin_filters.h5");
  REQUIRE(checkpoint.ok());
  REQUIRE(checkpoint->tensors.size() == 1);
  const CheckpointTensor& kernel = checkpoint->tensors[0];
  CHECK(kernel.name == "model_weights/dense/dense/kernel:0");
  CHECK(kernel.shape == std::vector<int64_t>{8, 8});
  const std::vector<float> values = kernel.to_f32();
  REQUIRE(values.size() == 64);
  for (size_t i = 0; i < values.size(); ++i) CHECK(values[i] == static_cast<float>(i));
}

namespace {

std::vector<uint8_t> keras_seed() {
  auto bytes = read_whole_file(hostile_dir() + "/keras_seed.h5");
  REQUIRE(bytes.ok());
  return bytes.value();
}

}  // namespace

TEST_CASE("hostile hdf5: the Keras seed reads, names and values, without the optimizer's state") {
  auto checkpoint = read_hdf5_image("keras_seed.h5", keras_seed(), {"optimizer_weights/"});
  REQUIRE(checkpoint.ok());
  REQUIRE(checkpoint->tensors.size() == 3);
  const CheckpointTensor* embeddings = checkpoint->find("model_weights/embedding/embedding/embeddings:0");
  REQUIRE(embeddings != nullptr);
  CHECK(embeddings->shape == std::vector<int64_t>{16, 4});
  CHECK(embeddings->to_f32()[63] == 63.0f);
  const CheckpointTensor* kernel = checkpoint->find("model_weights/dense/dense/kernel:0");
  const CheckpointTensor* bias = checkpoint->find("model_weights/dense/dense/bias:0");
  REQUIRE(kernel != nullptr);
  REQUIRE(bias != nullptr);
  CHECK(kernel->shape == std::vector<int64_t>{4, 3});
  CHECK(kernel->to_f32()[11] == 11.0f / 8);
  CHECK(bias->to_f32() == std::vector<float>{0.5f, -0.5f, 0.25f});
}

// Issue 32 (2): libhdf5 1.10 dies of SIGSEGV or SIGFPE on some 1-3-byte changes of a
// small Keras file (this seed's mutants killed the test process by the 30th). Each
// mutant (a fixed seed, so every run tries the same ones) must come back as tensors or
// as an error naming the file: never a signal in this process. The chunk bound refuses
// the crashers found so far before libhdf5 reads; the reader process (isolated_reader.h,
// tested in test_isolated_reader.cpp) holds any crash left.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kMutants = 1000;  // each read forks a sanitized process: slower
#else
constexpr int kMutants = 2000;
#endif

TEST_CASE("hostile hdf5: 1-3-byte mutants of a Keras .h5 give tensors or an error, never a crash") {
  const std::vector<uint8_t> seed = keras_seed();
  std::mt19937 random(32);  // mt19937's sequence is fixed by the standard
  int refused = 0, crashed = 0;
  for (int i = 0; i < kMutants; ++i) {
    std::vector<uint8_t> mutant = seed;
    const int changes = 1 + static_cast<int>(random() % 3);
    for (int c = 0; c < changes; ++c) {
      mutant[random() % mutant.size()] ^= static_cast<uint8_t>(1 + random() % 255);
    }
    const std::string name = "mutant_" + std::to_string(i) + ".h5";
    auto checkpoint = read_hdf5_image(name, mutant, {"optimizer_weights/"});
    if (checkpoint.ok()) continue;
    ++refused;
    const std::string message = checkpoint.status().message();
    CAPTURE(message);
    CHECK(message.find(name) != std::string::npos);
    if (message.find("libhdf5 crashed") != std::string::npos) ++crashed;
  }
  MESSAGE(kMutants << " mutants: " << refused << " refused, " << crashed << " of them by a libhdf5 crash");
  CHECK(refused > 0);
}
