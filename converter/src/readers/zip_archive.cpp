#include "readers/zip_archive.h"

#include <zip.h>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

Result<ZipArchive> ZipArchive::open(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (archive == nullptr) {
    zip_error_t z;
    zip_error_init_with_code(&z, error);
    const std::string what = std::string("not a readable zip archive: ") + zip_error_strerror(&z);
    zip_error_fini(&z);
    return reader_error(path, what);
  }
  return ZipArchive(archive, path);
}

ZipArchive::ZipArchive(ZipArchive&& other) noexcept : archive_(other.archive_), path_(std::move(other.path_)) {
  other.archive_ = nullptr;
}

ZipArchive::~ZipArchive() {
  if (archive_ != nullptr) zip_discard(archive_);
}

std::vector<std::string> ZipArchive::names() const {
  std::vector<std::string> out;
  const zip_int64_t count = zip_get_num_entries(archive_, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* name = zip_get_name(archive_, static_cast<zip_uint64_t>(i), 0);
    if (name != nullptr) out.emplace_back(name);
  }
  return out;
}

bool ZipArchive::contains(const std::string& name) const { return size_of(name) >= 0; }

int64_t ZipArchive::size_of(const std::string& name) const {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(archive_, name.c_str(), 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE)) return -1;
  return static_cast<int64_t>(stat.size);
}

Result<std::vector<uint8_t>> ZipArchive::read(const std::string& name, int64_t expected_size,
                                              uint64_t max_size) const {
  const int64_t size = size_of(name);
  if (size < 0) return reader_error(path_, "member " + name + " is missing");
  if (expected_size >= 0 && size != expected_size) {
    return reader_error(path_, "member " + name + " is " + std::to_string(size) + " bytes, expected " +
                                   std::to_string(expected_size));
  }
  if (static_cast<uint64_t>(size) > max_size) {
    return reader_error(path_, "member " + name + " claims " + std::to_string(size) + " bytes, over the limit");
  }
  zip_file_t* file = zip_fopen(archive_, name.c_str(), 0);
  if (file == nullptr) return reader_error(path_, "cannot open member " + name + ": " + zip_strerror(archive_));
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  const zip_int64_t got = size > 0 ? zip_fread(file, bytes.data(), static_cast<zip_uint64_t>(size)) : 0;
  const bool ok = got == size;
  const std::string error = ok ? "" : zip_file_strerror(file);
  zip_fclose(file);
  if (!ok) return reader_error(path_, "member " + name + " is truncated or corrupt: " + error);
  return bytes;
}

Result<std::vector<uint8_t>> ZipArchive::read_prefix(const std::string& name, size_t count) const {
  zip_file_t* file = zip_fopen(archive_, name.c_str(), 0);
  if (file == nullptr) return reader_error(path_, "cannot open member " + name);
  std::vector<uint8_t> bytes(count);
  const zip_int64_t got = zip_fread(file, bytes.data(), count);
  zip_fclose(file);
  if (got < 0) return reader_error(path_, "member " + name + " is corrupt");
  bytes.resize(static_cast<size_t>(got));
  return bytes;
}

}  // namespace convert
}  // namespace focal
