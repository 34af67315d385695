#include "readers/tensor_stream.h"

#include <cstdint>
#include <vector>

namespace focal {
namespace convert {
namespace {

constexpr uint32_t kMaxName = 1 << 16;
constexpr uint32_t kMaxRank = 8;

template <typename T>
bool send_value(int fd, T value) {
  return write_to_parent(fd, &value, sizeof(value));
}

template <typename T>
bool receive_value(ChildStream& stream, T* value) {
  return stream.read(value, sizeof(*value));
}

Status malformed(const std::string& path, const std::string& what) {
  return reader_error(path, "the reader process sent " + what);
}

bool known_type(uint8_t type) {
  return type <= static_cast<uint8_t>(ElementType::kBool) && type != static_cast<uint8_t>(ElementType::kI4);
}

Result<CheckpointTensor> receive_tensor(ChildStream& stream, const std::string& path, ReadBudget& budget) {
  CheckpointTensor tensor;
  uint32_t name_length = 0, rank = 0;
  uint8_t type = 0;
  if (!receive_value(stream, &name_length) || name_length > kMaxName) return malformed(path, "a bad tensor name");
  FOCAL_RETURN_IF_ERROR(budget.charge(path, "a tensor name", name_length));
  tensor.name.resize(name_length);
  if (!stream.read(&tensor.name[0], name_length)) return malformed(path, "a short tensor name");
  if (!receive_value(stream, &type) || !known_type(type) || !receive_value(stream, &rank) || rank > kMaxRank) {
    return malformed(path, "a bad type or rank for '" + tensor.name + "'");
  }
  tensor.type = static_cast<ElementType>(type);
  for (uint32_t i = 0; i < rank; ++i) {
    int64_t dim = 0;
    if (!receive_value(stream, &dim) || dim < 0) return malformed(path, "a bad shape for '" + tensor.name + "'");
    tensor.shape.push_back(dim);
  }
  uint64_t expected = 0, bytes = 0;
  if (!checked_byte_size(tensor.type, tensor.shape, &expected) || !receive_value(stream, &bytes) ||
      bytes != expected) {
    return malformed(path, "a byte count that does not match the shape of '" + tensor.name + "'");
  }
  FOCAL_RETURN_IF_ERROR(budget.charge(path, "dataset '" + tensor.name + "'", bytes));
  tensor.bytes.resize(static_cast<size_t>(bytes));
  if (!stream.read(tensor.bytes.data(), tensor.bytes.size())) return malformed(path, "a short tensor");
  return tensor;
}

Status receive_error(ChildStream& stream, const std::string& path) {
  uint8_t code = 0;
  uint32_t length = 0;
  if (!receive_value(stream, &code) || code == 0 || code > static_cast<uint8_t>(StatusCode::kIoError) ||
      !receive_value(stream, &length) || length >= Status::kMaxMessage) {
    return malformed(path, "a bad error record");
  }
  char message[Status::kMaxMessage] = {};
  if (!stream.read(message, length)) return malformed(path, "a short error record");
  return Status::error(static_cast<StatusCode>(code), "%s", message);
}

}  // namespace

bool send_tensor(int fd, const CheckpointTensor& tensor) {
  bool sent = send_value(fd, 'T') && send_value(fd, static_cast<uint32_t>(tensor.name.size())) &&
              write_to_parent(fd, tensor.name.data(), tensor.name.size()) &&
              send_value(fd, static_cast<uint8_t>(tensor.type)) && send_value(fd, static_cast<uint32_t>(tensor.shape.size()));
  for (const int64_t dim : tensor.shape) sent = sent && send_value(fd, dim);
  return sent && send_value(fd, static_cast<uint64_t>(tensor.byte_size())) &&
         write_to_parent(fd, tensor.data(), tensor.byte_size());
}

bool send_error(int fd, const Status& status) {
  const std::string message = status.message();
  return send_value(fd, 'E') && send_value(fd, static_cast<uint8_t>(status.code())) &&
         send_value(fd, static_cast<uint32_t>(message.size())) && write_to_parent(fd, message.data(), message.size());
}

bool send_end(int fd) { return send_value(fd, 'D'); }

Result<Checkpoint> receive_checkpoint(ChildStream& stream, const std::string& path, ReadBudget& budget) {
  Checkpoint checkpoint;
  checkpoint.path = path;
  while (true) {
    char kind = 0;
    if (!receive_value(stream, &kind)) return reader_error(path, "the reader process stopped before the end");
    if (kind == 'D') return checkpoint;
    if (kind == 'E') return receive_error(stream, path);
    if (kind != 'T') return malformed(path, "an unknown record");
    auto tensor = receive_tensor(stream, path, budget);
    if (!tensor.ok()) return tensor.status();
    checkpoint.tensors.push_back(std::move(tensor.value()));
  }
}

}  // namespace convert
}  // namespace focal
