// NumPy .npz: a zip (stored or deflated) of .npy members named <array>.npy.
#include "readers/checkpoint.h"
#include "readers/npy.h"
#include "readers/zip_archive.h"

namespace focal {
namespace convert {

Result<Checkpoint> read_npz(const std::string& path) {
  auto archive = ZipArchive::open(path);
  if (!archive.ok()) return archive.status();
  Checkpoint checkpoint;
  checkpoint.path = path;
  for (const std::string& member : archive->names()) {
    if (member.size() <= 4 || member.compare(member.size() - 4, 4, ".npy") != 0) continue;
    const std::string where = path + ": " + member;
    // The header first, so the declared shape bounds what the member may hold.
    auto prefix = archive->read_prefix(member, 12 + kMaxNpyHeader);
    if (!prefix.ok()) return prefix.status();
    auto header = parse_npy_header(where, prefix->data(), prefix->size());
    if (!header.ok()) return header.status();
    uint64_t data_bytes = 0;
    if (!checked_byte_size(header->type, header->shape, &data_bytes)) return reader_error(where, "array size overflows");
    const uint64_t total = header->header_bytes + data_bytes;
    auto bytes = archive->read(member, static_cast<int64_t>(total), total);
    if (!bytes.ok()) return bytes.status();
    auto tensor = make_npy_tensor(where, member.substr(0, member.size() - 4), header.value(),
                              bytes->data() + header->header_bytes, bytes->size() - header->header_bytes);
    if (!tensor.ok()) return tensor.status();
    checkpoint.tensors.push_back(std::move(tensor.value()));
  }
  if (checkpoint.tensors.empty()) return reader_error(path, "no .npy arrays in the archive");
  return checkpoint;
}

}  // namespace convert
}  // namespace focal
