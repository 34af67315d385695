// The reader process that runs libhdf5 (converter/src/readers/isolated_reader.h,
// tensor_stream.h): a child that crashes, spins, sleeps, allocates past its limit or
// sends what it should not becomes an error naming the file in the parent, which
// survives; a well-behaved child's tensors arrive intact.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <string>
#include <vector>

#include "readers/checkpoint.h"
#include "readers/isolated_reader.h"
#include "readers/read_budget.h"
#include "readers/tensor_stream.h"

using namespace focal::convert;

namespace {

struct Outcome {
  focal::Status status;
  std::vector<CheckpointTensor> tensors;
};

// Runs `child` in a reader process and receives a checkpoint from it under a budget
// for a 1 KiB file (16 MiB and a bit).
Outcome run_child(const IsolationLimits& limits, const std::function<bool(int)>& child) {
  Outcome outcome;
  ReadBudget budget("test bytes", 1024, 64);
  outcome.status = run_isolated("x.h5", limits, child, [&](ChildStream& stream) {
    auto received = receive_checkpoint(stream, "x.h5", budget);
    if (!received.ok()) return received.status();
    outcome.tensors = received->tensors;
    return focal::Status();
  });
  return outcome;
}

IsolationLimits small_limits() {
  IsolationLimits limits;
  limits.memory_bytes = uint64_t(64) << 20;
  limits.cpu_seconds = 1;
  limits.wall_seconds = 5;
  return limits;
}

CheckpointTensor tensor_of(const std::string& name, std::vector<int64_t> shape, size_t bytes) {
  CheckpointTensor tensor;
  tensor.name = name;
  tensor.type = ElementType::kF32;
  tensor.shape = std::move(shape);
  tensor.bytes.assign(bytes, 0x3f);
  return tensor;
}

void check_error(const Outcome& outcome, const char* text) {
  REQUIRE(!outcome.status.ok());
  const std::string message = outcome.status.message();
  CAPTURE(message);
  CHECK(message.find("x.h5") != std::string::npos);
  CHECK(message.find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("isolated reader: a well-behaved child's tensors arrive intact") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    return send_tensor(fd, tensor_of("a", {2, 3}, 24)) && send_tensor(fd, tensor_of("b/c:0", {}, 4)) && send_end(fd);
  });
  REQUIRE(outcome.status.ok());
  REQUIRE(outcome.tensors.size() == 2);
  CHECK(outcome.tensors[0].name == "a");
  CHECK(outcome.tensors[0].shape == std::vector<int64_t>{2, 3});
  CHECK(outcome.tensors[0].bytes == std::vector<uint8_t>(24, 0x3f));
  CHECK(outcome.tensors[1].name == "b/c:0");
  CHECK(outcome.tensors[1].shape.empty());
}

TEST_CASE("isolated reader: the child's error record is the error") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    return send_error(fd, reader_error("x.h5", "dataset 'w' is neither float nor integer"));
  });
  check_error(outcome, "dataset 'w' is neither float nor integer");
}

TEST_CASE("isolated reader: a child killed by SIGSEGV mid-stream is reported as a crash naming the file") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    send_tensor(fd, tensor_of("a", {2}, 8));
    std::raise(SIGSEGV);
    return true;
  });
  check_error(outcome, "libhdf5 crashed reading 'x.h5' (signal 11");
}

TEST_CASE("isolated reader: a child that spins is stopped by its CPU limit") {
  const Outcome outcome = run_child(small_limits(), [](int) {
    volatile uint64_t spin = 0;
    while (true) spin = spin + 1;
    return true;
  });
  check_error(outcome, "took more than 1 s of CPU");
}

TEST_CASE("isolated reader: a child that sleeps is given up after the wall-clock limit") {
  IsolationLimits limits = small_limits();
  limits.wall_seconds = 1;
  const Outcome outcome = run_child(limits, [](int) {
    sleep(30);
    return true;
  });
  check_error(outcome, "gave no answer within 1 s");
}

TEST_CASE("isolated reader: the child cannot map more than its address-space limit") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    void* block = mmap(nullptr, size_t(1) << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) return send_error(fd, reader_error("x.h5", "1 GiB refused"));
    return send_end(fd);
  });
  check_error(outcome, "1 GiB refused");
}

TEST_CASE("isolated reader: a tensor over the parent's budget is refused before it is allocated") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    // A record (tensor_stream.h) claiming 2^30 floats, then zeros until the parent
    // stops reading and kills this process.
    const char kind = 'T';
    const uint32_t name_length = 4, rank = 1;
    const auto type = static_cast<uint8_t>(ElementType::kF32);
    const int64_t dim = int64_t(1) << 30;
    const uint64_t bytes = uint64_t(4) << 30;
    bool sent = write_to_parent(fd, &kind, 1) && write_to_parent(fd, &name_length, 4) &&
                write_to_parent(fd, "huge", 4) && write_to_parent(fd, &type, 1) && write_to_parent(fd, &rank, 4) &&
                write_to_parent(fd, &dim, 8) && write_to_parent(fd, &bytes, 8);
    const std::vector<uint8_t> zeros(1 << 16);
    for (uint64_t at = 0; sent && at < bytes; at += zeros.size()) sent = write_to_parent(fd, zeros.data(), zeros.size());
    return sent && send_end(fd);
  });
  check_error(outcome, "dataset 'huge' needs 4294967296 bytes, over the budget for test bytes");
}

TEST_CASE("isolated reader: a byte count that does not match the shape is refused") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    CheckpointTensor lying = tensor_of("w", {4}, 16);
    lying.shape = {5};  // 20 bytes by its shape, 16 sent
    return send_tensor(fd, lying) && send_end(fd);
  });
  check_error(outcome, "a byte count that does not match the shape of 'w'");
}

TEST_CASE("isolated reader: a stream that ends before its end record is an error") {
  const Outcome outcome = run_child(small_limits(), [](int fd) { return send_tensor(fd, tensor_of("a", {2}, 8)); });
  check_error(outcome, "the reader process stopped before the end");
}

TEST_CASE("isolated reader: a child that exits with an error code mid-stream is reported with it") {
  const Outcome outcome = run_child(small_limits(), [](int fd) {
    send_tensor(fd, tensor_of("a", {2}, 8));
    return false;
  });
  check_error(outcome, "the reader process for 'x.h5' failed (exit code 1)");
}

// set_readers_in_process (the HDF5 fuzz harness's mode): the same child and parent code
// without the fork, with the same results; the child's work is seen in this process.
TEST_CASE("isolated reader: in process, a child's tensors and error records arrive as from a process") {
  set_readers_in_process(true);
  const pid_t self = getpid();
  pid_t child_pid = 0;
  const Outcome good = run_child(small_limits(), [&](int fd) {
    child_pid = getpid();
    return send_tensor(fd, tensor_of("a", {2, 3}, 24)) && send_tensor(fd, tensor_of("b/c:0", {}, 4)) &&
           send_end(fd);
  });
  const Outcome error = run_child(small_limits(), [](int fd) {
    return send_error(fd, reader_error("x.h5", "dataset 'w' is neither float nor integer"));
  });
  const Outcome cut = run_child(small_limits(), [](int fd) { return send_tensor(fd, tensor_of("a", {2}, 8)); });
  const Outcome lying = run_child(small_limits(), [](int fd) {
    CheckpointTensor tensor = tensor_of("w", {4}, 16);
    tensor.shape = {5};
    return send_tensor(fd, tensor) && send_end(fd);
  });
  set_readers_in_process(false);
  CHECK(child_pid == self);
  REQUIRE(good.status.ok());
  REQUIRE(good.tensors.size() == 2);
  CHECK(good.tensors[0].shape == std::vector<int64_t>{2, 3});
  CHECK(good.tensors[0].bytes == std::vector<uint8_t>(24, 0x3f));
  CHECK(good.tensors[1].name == "b/c:0");
  check_error(error, "dataset 'w' is neither float nor integer");
  check_error(cut, "the reader process stopped before the end");
  check_error(lying, "a byte count that does not match the shape of 'w'");
}

TEST_CASE("isolated reader: the in-process mode is off unless set, and off again once cleared") {
  const std::string self = std::to_string(getpid());
  const auto child = [](int fd) {  // names its tensor by the process that sends it
    return send_tensor(fd, tensor_of(std::to_string(getpid()), {}, 4)) && send_end(fd);
  };
  const Outcome before = run_child(small_limits(), child);
  set_readers_in_process(true);
  const Outcome during = run_child(small_limits(), child);
  set_readers_in_process(false);
  const Outcome after = run_child(small_limits(), child);
  for (const Outcome* outcome : {&before, &during, &after}) {
    REQUIRE(outcome->status.ok());
    REQUIRE(outcome->tensors.size() == 1);
  }
  CHECK(before.tensors[0].name != self);
  CHECK(during.tensors[0].name == self);
  CHECK(after.tensors[0].name != self);
}
