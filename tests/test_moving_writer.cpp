// ModelWriter::finish_moving_constants, the converter's path that keeps one copy of the
// weights resident: it must write exactly the bytes finish() writes, also when it moves
// the constants a second time out of an earlier draft.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "file_buffer.h"
#include "model_writer.h"
#include "support/tiny_model.h"

namespace {

std::vector<uint8_t> bytes_of(const focal::FileBuffer& file) {
  return std::vector<uint8_t>(file.data(), file.data() + file.size());
}

}  // namespace

TEST_CASE("convert: moving the constants into the file writes the bytes finish() writes, draft and final") {
  focal::ModelWriter reference;
  focal::testing::add_tiny_model(reference, focal::testing::TinyConfig());
  const auto expected = reference.finish();
  REQUIRE(expected.ok());

  focal::ModelWriter moving;
  focal::testing::add_tiny_model(moving, focal::testing::TinyConfig());
  auto draft = moving.finish_moving_constants();
  REQUIRE(draft.ok());
  CHECK(bytes_of(draft.value()) == expected.value());
  CHECK(reinterpret_cast<uintptr_t>(draft->data()) % 64 == 0);  // loadable in place
  auto final_file = moving.finish_moving_constants(&draft.value());  // out of the draft
  REQUIRE(final_file.ok());
  CHECK(bytes_of(final_file.value()) == expected.value());
  CHECK(moving.finish().value() == expected.value());  // reads the moved constants
}

TEST_CASE("convert: a file buffer's released pages read as zeros, the rest is kept") {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto buffer = focal::FileBuffer::allocate(4 * page);
  REQUIRE(buffer.ok());
  std::memset(buffer->data(), 7, buffer->size());
  std::vector<uint8_t> copy(3 * page);
  focal::copy_releasing(buffer.value(), page / 2, copy.size(), copy.data());
  CHECK(copy == std::vector<uint8_t>(3 * page, 7));
  CHECK(buffer->data()[page / 2 - 1] == 7);   // before the range: kept
  CHECK(buffer->data()[page] == 0);           // whole pages inside: released
  CHECK(buffer->data()[3 * page] == 7);       // the page the range ends in: kept
}
