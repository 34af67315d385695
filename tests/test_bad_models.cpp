// The loader's defences: every damaged or hostile file gives a clean error naming the
// problem, never a crash or an out-of-bounds read (this suite also runs under ASan and
// UBSan in the host-asan preset).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>

#include "focal/focal.h"
#include "model_writer.h"
#include "support/aligned_buffer.h"
#include "support/op_options.h"
#include "support/tiny_model.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

Status load_status(const std::vector<uint8_t>& bytes, LoadOptions options = LoadOptions()) {
  AlignedBuffer buffer(bytes);
  auto model = Model::from_bytes(buffer.data(), buffer.size(), options);
  return model.ok() ? Status() : model.status();
}

bool contains(const Status& status, const char* text) {
  return std::strstr(status.message(), text) != nullptr;
}

// x [1, 4] -> Dense(w [3, 4], b [3]) -> y [1, 3]; `edit` may change anything first.
// The writer packs w for the GEMM kernels: one 32-output panel of 4 f32 rows, 512 bytes.
constexpr uint64_t kPackedW = 512;
struct SmallModel {
  ModelWriter writer;
  int x, w, b, y;
  WriteOptions options;
};

std::vector<uint8_t> small_model(const std::function<void(SmallModel&)>& edit = nullptr,
                                 bool add_default_op = true) {
  SmallModel m;
  m.x = m.writer.add_input("x", DType::kF32, {1, 4});
  m.w = m.writer.add_constant_f32("w", {3, 4}, std::vector<float>(12, 0.5f));
  m.b = m.writer.add_constant_f32("b", {3}, std::vector<float>(3, 0.25f));
  m.y = m.writer.add_output("y", DType::kF32, {1, 3});
  if (edit) edit(m);
  if (add_default_op) m.writer.add_dense("dense", m.x, m.w, m.b, m.y);
  return m.writer.finish(m.options).value();
}

}  // namespace

TEST_CASE("the small model itself is valid") {
  const Status status = load_status(small_model());
  CHECK_MESSAGE(status.ok(), status.message());
}

TEST_CASE("truncation at every length is refused") {
  const std::vector<uint8_t> file = testing::build_tiny_model();
  for (size_t length = 0; length < file.size(); ++length) {
    const std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<long>(length));
    const Status status = load_status(cut);
    CHECK_MESSAGE(!status.ok(), "length " << length);
    // Without the checksum the structure and bounds checks must still hold.
    LoadOptions no_checksum;
    no_checksum.verify_checksum = false;
    CHECK_MESSAGE(!load_status(cut, no_checksum).ok(), "length " << length);
  }
}

TEST_CASE("every single-byte flip is refused, and without the checksum nothing crashes") {
  const std::vector<uint8_t> file = testing::build_tiny_model();
  int loaded_without_checksum = 0;
  for (size_t at = 0; at < file.size(); ++at) {
    std::vector<uint8_t> flipped = file;
    flipped[at] ^= 0xFF;
    CHECK_MESSAGE(!load_status(flipped).ok(), "byte " << at);

    // A flip the structural checks cannot see (a weight's bits, a tolerance) must still
    // load and run safely: run it and its self-test under the sanitizers.
    AlignedBuffer buffer(flipped);
    LoadOptions no_checksum;
    no_checksum.verify_checksum = false;
    auto model = Model::from_bytes(buffer.data(), buffer.size(), no_checksum);
    if (!model.ok()) continue;
    ++loaded_without_checksum;
    // A flipped plan may ask for a terabyte arena; a caller would refuse that, so do we.
    auto arena_bytes = Session::required_arena_bytes(*model, SessionOptions());
    if (!arena_bytes.ok() || arena_bytes.value() > (1u << 20)) continue;
    AlignedBuffer arena(arena_bytes.value());
    auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
    if (session.ok()) (void)run_self_tests(session.value());
  }
  MESSAGE(loaded_without_checksum << " of " << file.size()
                                  << " flips pass every check but the checksum");
}

TEST_CASE("wrong file identifier") {
  std::vector<uint8_t> file = small_model();
  std::memcpy(file.data() + 8, "ONNX", 4);
  const Status status = load_status(file);
  CHECK(status.code() == StatusCode::kInvalidModel);
  CHECK(contains(status, "file identifier 'ONNX', expected 'FOCL'"));
}

TEST_CASE("a future format version is refused naming both versions") {
  const Status status = load_status(small_model([](SmallModel& m) { m.options.version = 2; }));
  CHECK(status.code() == StatusCode::kUnsupported);
  CHECK(contains(status, "version 2"));
  CHECK(contains(status, "version 1"));
}

TEST_CASE("zero, oversized and overflowing dims") {
  Status status =
      load_status(small_model([](SmallModel& m) { m.writer.add_constant_f32("empty", {0}, {}); }));
  CHECK(contains(status, "'empty' dim 0 is 0"));

  status = load_status(small_model(
      [](SmallModel& m) { m.writer.add_activation("huge", DType::kF32, {int64_t(1) << 40}); }));
  CHECK(contains(status, "'huge' dim 0 is 1099511627776"));

  status = load_status(small_model([](SmallModel& m) {
    const int64_t big = (int64_t(1) << 31) - 1;
    m.writer.add_activation("overflow", DType::kF32, {big, big, big});
  }));
  CHECK(contains(status, "'overflow': byte size of its shape overflows"));

  status = load_status(small_model([](SmallModel& m) {
    m.writer.add_activation("deep", DType::kF32, {1, 1, 1, 1, 1, 1, 1});
  }));
  CHECK(contains(status, "'deep' has rank 7"));
}

TEST_CASE("misaligned, out-of-file, short and overlapping buffers") {
  Status status = load_status(small_model([](SmallModel& m) {
    m.options.data_ref_overrides.push_back({m.w, fb::BufferRef(4, 48)});
  }));
  CHECK(contains(status, "'w': data offset 4 is not a multiple of 64"));

  status = load_status(small_model([](SmallModel& m) {
    m.options.data_ref_overrides.push_back({m.w, fb::BufferRef(1 << 20, kPackedW)});
  }));
  CHECK(contains(status, "'w': data [1048576, +512) lies outside"));

  status = load_status(small_model([](SmallModel& m) {
    m.options.data_ref_overrides.push_back({m.w, fb::BufferRef(UINT64_MAX - 63, kPackedW)});
  }));
  CHECK(contains(status, "lies outside"));

  status = load_status(small_model([](SmallModel& m) {
    m.options.data_ref_overrides.push_back({m.w, fb::BufferRef(0, 40)});
  }));
  CHECK(contains(status, "'w': data is 40 bytes, its shape and dtype need 512"));

  status = load_status(small_model([](SmallModel& m) {
    m.options.data_ref_overrides.push_back({m.b, fb::BufferRef(0, 12)});
  }));
  CHECK(contains(status, "constants 'w' and 'b' have overlapping data"));
}

TEST_CASE("ops naming missing tensors, wrong dtypes, wrong shapes") {
  Status status = load_status(
      small_model([](SmallModel& m) { m.writer.add_dense("dense", m.x, 99, m.b, m.y); }, false));
  CHECK(contains(status, "op 0 'dense' (DenseOptions): input names tensor 99"));

  status = load_status(
      small_model([](SmallModel& m) { m.writer.add_dense("dense", m.x, m.w, m.b, -5); }, false));
  CHECK(contains(status, "output names tensor -5"));

  status = load_status(small_model(
      [](SmallModel& m) {
        const int w16 = m.writer.add_constant("w16", DType::kI32, {3, 4}, std::vector<uint8_t>(48));
        m.writer.add_dense("dense", m.x, w16, m.b, m.y);
      },
      false));
  CHECK(contains(status, "tensor 'w16' is I32, expected f32"));

  status = load_status(small_model(
      [](SmallModel& m) {
        const int w5 = m.writer.add_constant_f32("w5", {3, 5}, std::vector<float>(15));
        m.writer.add_dense("dense", m.x, w5, m.b, m.y);
      },
      false));
  CHECK(contains(status, "weight 'w5' is [3, 5] but input 'x' has 4"));

  status = load_status(
      small_model([](SmallModel& m) { m.writer.add_dense("dense", m.x, m.x, m.b, m.y); }, false));
  CHECK(contains(status, "'x' must be a constant"));

  status = load_status(
      small_model([](SmallModel& m) { m.writer.add_softmax("softmax", m.x, m.y); }, false));
  CHECK(contains(status, "'x' and 'y' must have the same shape"));
}

// Found by clang-tidy (bugprone-misplaced-widening-cast): the writer's range check
// computed index + 1 in int32, which overflows (UBSan) for INT32_MAX.
TEST_CASE("hostile: an op naming tensor INT32_MAX is written and refused without overflow") {
  const Status status = load_status(small_model(
      [](SmallModel& m) { m.writer.add_softmax("softmax", 2147483647, m.y); }, false));
  CHECK(contains(status, "input names tensor 2147483647"));
}

TEST_CASE("use before definition and double definition") {
  Status status = load_status(small_model(
      [](SmallModel& m) {
        const int h = m.writer.add_activation("h", DType::kF32, {1, 3});
        m.writer.add_softmax("late_reader", h, m.y);
        m.writer.add_dense("dense", m.x, m.w, m.b, h);
      },
      false));
  CHECK(contains(status,
                 "op 0 'late_reader' (SoftmaxOptions): reads tensor 'h' before any op writes it"));

  status = load_status(small_model(
      [](SmallModel& m) {
        m.writer.add_dense("dense", m.x, m.w, m.b, m.y);
        m.writer.add_dense("again", m.x, m.w, m.b, m.y);
      },
      false));
  CHECK(contains(status, "writes tensor 'y', which is already defined"));

  status = load_status(
      small_model([](SmallModel& m) { m.writer.add_dense("dense", m.x, m.w, m.b, m.w); }, false));
  CHECK(contains(status, "writes tensor 'w', which is already defined"));

  status = load_status(small_model([](SmallModel&) {}, false));
  CHECK(contains(status, "output 'y' is never written"));
}

TEST_CASE("a memory plan that overlaps live tensors, or exceeds its arena") {
  Status status = load_status(small_model([](SmallModel& m) {
    m.options.arena_offset_overrides.push_back({m.y, 0});
    m.options.arena_offset_overrides.push_back({m.x, 0});
  }));
  CHECK(contains(status, "memory plan puts 'x' and 'y' in the same arena bytes"));

  status = load_status(small_model([](SmallModel& m) {
    m.options.arena_offset_overrides.push_back({m.y, 1 << 20});
  }));
  CHECK(contains(status, "'y' at arena offset 1048576"));

  status = load_status(small_model([](SmallModel& m) {
    m.options.arena_offset_overrides.push_back({m.y, 8});
  }));
  CHECK(contains(status, "misaligned"));
}

TEST_CASE("null, misaligned and tiny inputs to the loader") {
  CHECK(Model::from_bytes(nullptr, 100).status().code() == StatusCode::kInvalidArgument);
  AlignedBuffer buffer(small_model(), 4);
  CHECK(contains(Model::from_bytes(buffer.data(), buffer.size()).status(), "64-byte aligned"));
  AlignedBuffer tiny(8);
  CHECK(contains(Model::from_bytes(tiny.data(), tiny.size()).status(), "too small"));
}

TEST_CASE("packed dense weights: size and layout checks") {
  Status status = load_status(small_model([](SmallModel& m) {
    m.writer.set_dense_weight_type(DType::kI8);
  }));
  CHECK_MESSAGE(status.ok(), status.message());  // int8 packed weights load fine

  ModelWriter writer;  // I32 is not a weight type: the writer refuses, naming why
  const int x = writer.add_input("x", DType::kF32, {1, 4});
  const int w = writer.add_constant_f32("w", {3, 4}, std::vector<float>(12, 0.5f));
  const int y = writer.add_output("y", DType::kF32, {1, 3});
  writer.set_dense_weight_type(DType::kI32);
  writer.add_dense("dense", x, w, -1, y);
  CHECK(!writer.finish().ok());

  // A packed weight whose bytes do not match its [out, in] size is refused.
  status = load_status(small_model([](SmallModel& m) {
    m.options.data_ref_overrides.push_back({m.w, fb::BufferRef(0, 448)});
  }));
  CHECK(contains(status, "'w': data is 448 bytes, its shape and dtype need 512"));
}

TEST_CASE("L2Normalize and Scale: bad options and shapes are refused, naming the op and the value") {
  // x [1, 4] -> Dense -> y, and x -> the op -> out [1, width].
  const auto with_op = [](const std::function<void(SmallModel&, int out)>& add, int64_t width = 4) {
    return load_status(small_model(
        [&](SmallModel& m) {
          m.writer.add_dense("dense", m.x, m.w, m.b, m.y);
          add(m, m.writer.add_output("out", DType::kF32, {1, width}));
        },
        false));
  };
  // The op kinds through the writer's one path (ModelWriter::add_op), options as given.
  const auto l2 = [](float epsilon) {
    return [=](SmallModel& m, int out) { m.writer.add_op("l2", testing::l2_normalize_options(epsilon), {m.x}, {out}); };
  };
  const auto scale = [](float factor, float shift) {
    return [=](SmallModel& m, int out) { m.writer.add_op("scale", testing::scale_options(factor, shift), {m.x}, {out}); };
  };
  Status status = with_op(l2(1e-12f));
  CHECK_MESSAGE(status.ok(), status.message());
  status = with_op(scale(0.5f, -1.0f));
  CHECK_MESSAGE(status.ok(), status.message());

  status = with_op(l2(0.0f));
  CHECK(contains(status, "op 1 'l2' (L2NormalizeOptions): epsilon must be positive and finite, found 0"));
  status = with_op(l2(NAN));
  CHECK(contains(status, "epsilon must be positive and finite, found nan"));
  status = with_op(l2(1e-12f), 3);
  CHECK(contains(status, "'x' and 'out' must have the same shape"));
  status = with_op(scale(NAN, 0.0f));
  CHECK(contains(status, "op 1 'scale' (ScaleOptions): scale and shift must be finite, found nan and 0"));
  status = with_op(scale(1.0f, INFINITY));
  CHECK(contains(status, "scale and shift must be finite, found 1 and inf"));
  status = with_op(scale(2.0f, 0.0f), 3);
  CHECK(contains(status, "'x' and 'out' must have the same shape"));
}

TEST_CASE("Clip: bounds that cross or are NaN, a non-f32 input and a reshaping output are refused, naming the op") {
  // x [1, 4] -> Dense -> y, and an input -> Clip -> out [1, width].
  const auto with_clip = [](float min, float max, int64_t width = 4, DType dtype = DType::kF32) {
    return load_status(small_model(
        [&](SmallModel& m) {
          m.writer.add_dense("dense", m.x, m.w, m.b, m.y);
          const int in = dtype == DType::kF32 ? m.x : m.writer.add_input("ids", dtype, {1, 4});
          const int out = m.writer.add_output("out", dtype, {1, width});
          m.writer.add_op("clip", testing::clip_options(min, max), {in}, {out});
        },
        false));
  };
  Status status = with_clip(0.0f, 6.0f);
  CHECK_MESSAGE(status.ok(), status.message());
  status = with_clip(-INFINITY, INFINITY);  // both sides open: the schema's defaults
  CHECK_MESSAGE(status.ok(), status.message());
  status = with_clip(2.0f, 2.0f);  // a point: every element becomes 2
  CHECK_MESSAGE(status.ok(), status.message());

  status = with_clip(6.0f, 0.0f);
  CHECK(contains(status, "op 1 'clip' (ClipOptions): min must be at most max and neither NaN "
                         "(an open side is -inf or inf), found min 6 and max 0"));
  status = with_clip(NAN, 1.0f);
  CHECK(contains(status, "op 1 'clip' (ClipOptions): min must be at most max and neither NaN"));
  CHECK(contains(status, "found min nan and max 1"));
  status = with_clip(0.0f, NAN);
  CHECK(contains(status, "found min 0 and max nan"));
  status = with_clip(INFINITY, -INFINITY);
  CHECK(contains(status, "found min inf and max -inf"));
  status = with_clip(0.0f, 6.0f, 3);
  CHECK(contains(status, "'x' and 'out' must have the same shape"));
  status = with_clip(0.0f, 6.0f, 4, DType::kI32);
  CHECK(contains(status, "op 1 'clip' (ClipOptions): tensor 'ids' is I32, expected f32"));
}

TEST_CASE("hostile: an int4 dense weight given to an Embedding as its token table is refused") {
  // The gather has no int4 path: it would read the 4-bit panels as f32 rows, past the end
  // of their bytes (ASan heap-buffer-overflow through the C API and Python before).
  ModelWriter writer;
  writer.set_dense_weight_type(DType::kI4);
  const int x = writer.add_input("x", DType::kF32, {1, 32});
  const int ids = writer.add_input("ids", DType::kI32, {1, 2});
  const int w = writer.add_constant_f32("w", {32, 32}, std::vector<float>(32 * 32, 0.5f));
  const int y = writer.add_output("y", DType::kF32, {1, 32});
  const int e = writer.add_output("e", DType::kF32, {1, 2, 32});
  writer.add_dense("dense", x, w, -1, y);
  writer.add_embedding("embed", ids, w, -1, -1, -1, e);
  auto bytes = writer.finish();
  REQUIRE_MESSAGE(bytes.ok(), bytes.status().message());
  const Status status = load_status(bytes.value());
  CHECK_MESSAGE(contains(status, "packed table 'w' is int4, which the embedding cannot gather"), status.message());
}
