#include "readers/checkpoint.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "focal/internal/half.h"

namespace focal {
namespace convert {

const char* element_type_name(ElementType type) {
  static const struct Names {
    char text[kElementTypeCount][8] = {};
    Names() {
      for (size_t i = 0; i < kElementTypeCount; ++i) {
        const char* name = element_type_row(static_cast<ElementType>(i)).name;
        for (size_t c = 0; name[c] != '\0' && c + 1 < sizeof(text[i]); ++c) {
          text[i][c] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[c])));
        }
      }
    }
  } names;
  const size_t i = static_cast<size_t>(type);
  return i < kElementTypeCount ? names.text[i] : "?";
}

int64_t CheckpointTensor::element_count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {
template <class T>
T read_le(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));  // all supported hosts are little-endian
  return value;
}
}  // namespace

std::vector<float> CheckpointTensor::to_f32() const {
  const size_t count = static_cast<size_t>(element_count());
  const size_t size = element_size(type);
  const uint8_t* const base = data();
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* p = base + i * size;
    switch (type) {
      case ElementType::kF64: out[i] = static_cast<float>(read_le<double>(p)); break;
      case ElementType::kF32: out[i] = read_le<float>(p); break;
      case ElementType::kF16: out[i] = half_to_float(read_le<uint16_t>(p)); break;
      case ElementType::kBF16: out[i] = bf16_to_float(read_le<uint16_t>(p)); break;
      case ElementType::kI64: out[i] = static_cast<float>(read_le<int64_t>(p)); break;
      case ElementType::kI32: out[i] = static_cast<float>(read_le<int32_t>(p)); break;
      case ElementType::kI16: out[i] = static_cast<float>(read_le<int16_t>(p)); break;
      case ElementType::kI8: out[i] = static_cast<float>(read_le<int8_t>(p)); break;
      case ElementType::kU8: case ElementType::kBool: out[i] = static_cast<float>(*p); break;
      case ElementType::kI4: break;  // the engine's packed int4: no reader makes it
    }
  }
  return out;
}

void CheckpointTensor::release_pages() const {
  if (view == nullptr || view_bytes == 0) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(view) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(view) + view_bytes) / page * page;
  // Advice only: on failure the pages simply stay resident.
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

namespace {

// One element as int64_t when it is an integer type (exact); false for float types.
bool integer_element(ElementType type, const uint8_t* p, int64_t* value) {
  switch (type) {
    case ElementType::kI64: *value = read_le<int64_t>(p); return true;
    case ElementType::kI32: *value = read_le<int32_t>(p); return true;
    case ElementType::kI16: *value = read_le<int16_t>(p); return true;
    case ElementType::kI8: *value = read_le<int8_t>(p); return true;  // NOLINT(bugprone-signed-char-misuse,cert-str34-c): int8 is a number here, not a character
    case ElementType::kU8: case ElementType::kBool: *value = *p; return true;
    default: return false;
  }
}

// One float element (f64, f32, f16, bf16), widened exactly to double.
double real_element(ElementType type, const uint8_t* p) {
  if (type == ElementType::kF64) return read_le<double>(p);
  if (type == ElementType::kF32) return read_le<float>(p);
  if (type == ElementType::kF16) return half_to_float(read_le<uint16_t>(p));
  return bf16_to_float(read_le<uint16_t>(p));
}

}  // namespace

Result<std::vector<int32_t>> CheckpointTensor::to_i32() const {
  const size_t size = element_size(type);
  const int64_t count = element_count();
  // The bytes must be exactly the shape's: the loop below reads them and nothing else.
  if (count < 0 || size == 0 || byte_size() / size != static_cast<uint64_t>(count) || byte_size() % size != 0) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' holds %zu bytes, not %lld elements of %s", name.c_str(),
                         byte_size(), static_cast<long long>(count), element_type_name(type));
  }
  std::vector<int32_t> out(static_cast<size_t>(count));
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t* p = data() + i * size;
    int64_t integer = 0;
    if (integer_element(type, p, &integer)) {
      if (integer < INT32_MIN || integer > INT32_MAX) {
        return Status::error(StatusCode::kOutOfRange, "'%s' element %zu is %lld, outside int32", name.c_str(), i,
                             static_cast<long long>(integer));
      }
      out[i] = static_cast<int32_t>(integer);
      continue;
    }
    const double real = real_element(type, p);
    // In range and whole, so the cast is exact (NaN fails the range test).
    if (!(real >= double(INT32_MIN) && real <= double(INT32_MAX)) || std::floor(real) != real) {
      return Status::error(StatusCode::kOutOfRange, "'%s' element %zu is %.17g, not an int32", name.c_str(), i, real);
    }
    out[i] = static_cast<int32_t>(real);
  }
  return out;
}

const CheckpointTensor* Checkpoint::find(const std::string& name) const {
  for (const CheckpointTensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool checked_byte_size(ElementType type, const std::vector<int64_t>& shape, uint64_t* bytes) {
  constexpr uint64_t kLimit = uint64_t(1) << 48;  // 256 TiB: no real checkpoint is larger
  uint64_t total = element_size(type);
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d > 0 && total > kLimit / static_cast<uint64_t>(d)) return false;
    total *= static_cast<uint64_t>(d);
  }
  *bytes = total;
  return true;
}

Status reader_error(const std::string& path, const std::string& what) {
  return Status::error(StatusCode::kInvalidModel, "%s: %s", path.c_str(), what.c_str());
}

Result<std::vector<uint8_t>> read_whole_file(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open %s", path.c_str());
  const std::streamoff size = in.tellg();
  if (size < 0) return Status::error(StatusCode::kIoError, "cannot size %s", path.c_str());
  // On 32-bit targets a file must fit the address space (and std::streamsize).
  if (static_cast<uint64_t>(size) > static_cast<uint64_t>(std::numeric_limits<std::streamsize>::max()) ||
      static_cast<uint64_t>(size) > std::numeric_limits<size_t>::max()) {
    return Status::error(StatusCode::kIoError, "%s is too large to read on this machine", path.c_str());
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    return Status::error(StatusCode::kIoError, "cannot read %s", path.c_str());
  }
  return bytes;
}

Result<MappedFile> map_whole_file(const std::string& path) {
  // O_NONBLOCK: a FIFO would block open() until a writer came; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::error(StatusCode::kIoError, "cannot open %s", path.c_str());
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error(StatusCode::kIoError, "%s is not a regular file", path.c_str());
  }
  if (static_cast<uint64_t>(info.st_size) > std::numeric_limits<size_t>::max()) {
    ::close(fd);
    return Status::error(StatusCode::kIoError, "%s is too large to map on this machine", path.c_str());
  }
  MappedFile file;
  file.size = static_cast<size_t>(info.st_size);
  if (file.size == 0) {
    ::close(fd);
    return file;
  }
  void* at = mmap(nullptr, file.size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (at == MAP_FAILED) return Status::error(StatusCode::kIoError, "cannot map %s", path.c_str());
  const size_t size = file.size;
  file.owner = std::shared_ptr<const void>(at, [size](const void* p) { munmap(const_cast<void*>(p), size); });
  file.data = static_cast<const uint8_t*>(at);
  return file;
}

Status check_regular_file(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    return Status::error(StatusCode::kIoError, "cannot open %s: %s", path.c_str(), std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) return Status::error(StatusCode::kIoError, "%s is not a regular file", path.c_str());
  return Status();
}

}  // namespace convert
}  // namespace focal
