// NumPy .npy: magic, version, a Python-literal header {'descr', 'fortran_order',
// 'shape'}, then the data. Read here, and written for `focal run`'s outputs.
#include <cctype>
#include <cstdio>
#include <cstring>

#include "readers/checkpoint.h"
#include "readers/npy.h"

namespace focal {
namespace convert {
namespace {

bool parse_descr(const std::string& descr, ElementType* type) {
  static const std::pair<const char*, ElementType> kTypes[] = {
      {"<f8", ElementType::kF64}, {"<f4", ElementType::kF32}, {"<f2", ElementType::kF16},
      {"<i8", ElementType::kI64}, {"<i4", ElementType::kI32}, {"<i2", ElementType::kI16},
      {"|i1", ElementType::kI8},  {"|u1", ElementType::kU8},  {"|b1", ElementType::kBool}};
  for (const auto& t : kTypes) {
    if (descr == t.first) {
      *type = t.second;
      return true;
    }
  }
  return false;
}

// The text after `'key':` in the header dict, up to the value's end.
std::string value_of(const std::string& header, const std::string& key) {
  const size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  size_t p = header.find(':', at);
  if (p == std::string::npos) return "";
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  if (p >= header.size()) return "";
  if (header[p] == '\'') {
    const size_t end = header.find('\'', p + 1);
    return end == std::string::npos ? "" : header.substr(p, end - p + 1);
  }
  if (header[p] == '(') {
    const size_t end = header.find(')', p);
    return end == std::string::npos ? "" : header.substr(p, end - p + 1);
  }
  size_t end = p;
  while (end < header.size() && std::isalnum(static_cast<unsigned char>(header[end]))) ++end;
  return header.substr(p, end - p);
}

// The dims of a shape tuple "(2, 3)", "(4,)" or "()".
Status parse_shape(const std::string& where, const std::string& shape, std::vector<int64_t>* dims) {
  if (shape.size() < 2 || shape.front() != '(') return reader_error(where, "header lacks a shape tuple");
  size_t p = 1;
  while (p < shape.size() - 1) {
    while (p < shape.size() - 1 && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= shape.size() - 1) break;
    size_t end = p;
    while (end < shape.size() - 1 && std::isdigit(static_cast<unsigned char>(shape[end]))) ++end;
    if (end == p || end - p > 15) return reader_error(where, "bad shape " + shape);  // 15 digits fit int64
    dims->push_back(std::stoll(shape.substr(p, end - p)));
    p = end;
  }
  if (dims->size() > 16) return reader_error(where, "more than 16 dims");
  return Status();
}

}  // namespace

Result<NpyHeader> parse_npy_header(const std::string& where, const uint8_t* bytes, size_t size) {
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0) return reader_error(where, "not a .npy array");
  const uint8_t major = bytes[6];
  size_t length, start;
  if (major == 1) {
    length = size_t(bytes[8]) | (size_t(bytes[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return reader_error(where, "truncated .npy header");
    length = size_t(bytes[8]) | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    start = 12;
  } else {
    return reader_error(where, ".npy version " + std::to_string(major) + " is unknown");
  }
  if (length > kMaxNpyHeader || length > size - start) return reader_error(where, ".npy header length exceeds the data");
  const std::string header(reinterpret_cast<const char*>(bytes + start), length);
  NpyHeader h;
  h.header_bytes = start + length;
  const std::string descr = value_of(header, "descr");
  if (descr.size() < 3 || !parse_descr(descr.substr(1, descr.size() - 2), &h.type)) {
    return reader_error(where, "unsupported dtype " + (descr.empty() ? std::string("(none)") : descr) +
                                   " (little-endian float, int, uint8 and bool arrays are read)");
  }
  const std::string order = value_of(header, "fortran_order");
  if (order != "True" && order != "False") return reader_error(where, "header lacks fortran_order");
  h.fortran_order = order == "True";
  FOCAL_RETURN_IF_ERROR(parse_shape(where, value_of(header, "shape"), &h.shape));
  return h;
}

namespace {

// Row-major copy of a column-major array.
std::vector<uint8_t> from_fortran_order(const std::vector<uint8_t>& data, const std::vector<int64_t>& shape, size_t size) {
  std::vector<uint8_t> out(data.size());
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t e = 0; e < count; ++e) {  // e walks row-major order
    int64_t at = 0, stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      at += index[i] * stride;
      stride *= shape[i];
    }
    std::memcpy(out.data() + static_cast<size_t>(e) * size, data.data() + static_cast<size_t>(at) * size, size);
    for (size_t i = index.size(); i-- > 0;) {
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

Result<CheckpointTensor> make_npy_tensor(const std::string& where, const std::string& name, const NpyHeader& h,
                                     const uint8_t* data, size_t data_bytes) {
  CheckpointTensor t;
  t.name = name;
  t.type = h.type;
  t.shape = h.shape;
  uint64_t expected = 0;
  if (!checked_byte_size(t.type, t.shape, &expected)) return reader_error(where, "array size overflows");
  if (data_bytes != expected) {
    return reader_error(where, "array data is " + std::to_string(data_bytes) + " bytes, its header needs " +
                                   std::to_string(expected));
  }
  t.bytes.assign(data, data + data_bytes);
  if (h.fortran_order && t.shape.size() > 1) t.bytes = from_fortran_order(t.bytes, t.shape, element_size(t.type));
  return t;
}

Result<Checkpoint> read_npy(const std::string& path) {
  auto file = read_whole_file(path);
  if (!file.ok()) return file.status();
  auto header = parse_npy_header(path, file->data(), file->size());
  if (!header.ok()) return header.status();
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
  auto tensor = make_npy_tensor(path, name, header.value(), file->data() + header->header_bytes,
                            file->size() - header->header_bytes);
  if (!tensor.ok()) return tensor.status();
  Checkpoint checkpoint;
  checkpoint.path = path;
  checkpoint.tensors.push_back(std::move(tensor.value()));
  return checkpoint;
}

Result<std::vector<uint8_t>> npy_file_bytes(ElementType type, const std::vector<int64_t>& shape, const void* data,
                                            size_t bytes) {
  const char* descr = nullptr;
  switch (type) {
    case ElementType::kF32: descr = "<f4"; break;
    case ElementType::kI32: descr = "<i4"; break;
    case ElementType::kF16: descr = "<f2"; break;
    case ElementType::kI64: descr = "<i8"; break;
    default: return Status::error(StatusCode::kUnsupported, "cannot write %s to .npy", element_type_name(type));
  }
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 1);  // "(2, 3)" but "(5,)"
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  const uint8_t preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size() & 0xFF),
                                static_cast<uint8_t>(header.size() >> 8)};
  std::vector<uint8_t> file(preamble, preamble + 10);
  file.insert(file.end(), header.begin(), header.end());
  if (bytes > 0) file.insert(file.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
  return file;
}

Status write_npy(const std::string& path, ElementType type, const std::vector<int64_t>& shape,
                 const void* data, size_t bytes) {
  const Result<std::vector<uint8_t>> file = npy_file_bytes(type, shape, data, bytes);
  if (!file.ok()) return file.status();
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) return Status::error(StatusCode::kIoError, "cannot write %s", path.c_str());
  bool ok = std::fwrite(file->data(), 1, file->size(), out) == file->size();
  ok = std::fclose(out) == 0 && ok;
  return ok ? Status() : Status::error(StatusCode::kIoError, "cannot write %s", path.c_str());
}

}  // namespace convert
}  // namespace focal
