#include "readers/zip_archive.h"

#include <sys/stat.h>
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
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    zip_discard(archive);
    return Status::error(StatusCode::kIoError, "cannot size %s", path.c_str());
  }
  return ZipArchive(archive, path, static_cast<uint64_t>(info.st_size));
}

ZipArchive::ZipArchive(ZipArchive&& other) noexcept
    : archive_(other.archive_), path_(std::move(other.path_)), file_bytes_(other.file_bytes_),
      inflated_(std::move(other.inflated_)) {
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

// A member's compressed bytes lie inside the archive, a stored member is as large as
// its data, and what it inflates to fits the archive's budget: checked before inflating.
Status ZipArchive::check_sizes(const std::string& name, uint64_t size) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  const zip_uint64_t needed = ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
  if (zip_stat(archive_, name.c_str(), 0, &stat) != 0 || (stat.valid & needed) != needed) {
    return reader_error(path_, "member " + name + " has no compressed size");
  }
  if (stat.comp_size > file_bytes_) {
    return reader_error(path_, "member " + name + " claims " + std::to_string(stat.comp_size) +
                                   " compressed bytes, more than the archive's " + std::to_string(file_bytes_));
  }
  if (stat.comp_method == ZIP_CM_STORE && stat.comp_size != size) {
    return reader_error(path_, "stored member " + name + " claims " + std::to_string(size) + " bytes but holds " +
                                   std::to_string(stat.comp_size));
  }
  return inflated_.charge(path_, "member " + name, size);
}

Result<std::vector<uint8_t>> ZipArchive::read(const std::string& name, int64_t expected_size, uint64_t max_size) {
  const int64_t size = size_of(name);
  if (size < 0) return reader_error(path_, "member " + name + " is missing");
  if (expected_size >= 0 && size != expected_size) {
    return reader_error(path_, "member " + name + " is " + std::to_string(size) + " bytes, expected " +
                                   std::to_string(expected_size));
  }
  if (static_cast<uint64_t>(size) > max_size) {
    return reader_error(path_, "member " + name + " claims " + std::to_string(size) + " bytes, over the limit");
  }
  FOCAL_RETURN_IF_ERROR(check_sizes(name, static_cast<uint64_t>(size)));
  zip_file_t* file = zip_fopen(archive_, name.c_str(), 0);
  if (file == nullptr) return reader_error(path_, "cannot open member " + name + ": " + zip_strerror(archive_));
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  const zip_int64_t got = size > 0 ? zip_fread(file, bytes.data(), static_cast<zip_uint64_t>(size)) : 0;
  // libzip reports a failed read through the file's error; a short read of a member
  // whose data ends early is no error to it, so that case is described here.
  const std::string error = got < 0 ? std::string("corrupt: ") + zip_file_strerror(file)
                                    : "truncated: " + std::to_string(got) + " of its " + std::to_string(size) +
                                          " bytes";
  zip_fclose(file);
  if (got != size) return reader_error(path_, "member " + name + " is " + error);
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
