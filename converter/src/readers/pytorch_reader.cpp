// torch.save files (PyTorch >= 1.6): a zip archive holding <name>/data.pkl, a pickle of
// the state_dict whose tensors point at storages <name>/data/<key> by persistent id.
#include <cstring>
#include <set>

#include "readers/checkpoint.h"
#include "readers/restricted_unpickler.h"
#include "readers/zip_archive.h"

namespace focal {
namespace convert {
namespace {

using Kind = PickleValue::Kind;

constexpr uint64_t kMaxPickleBytes = 1u << 30;
constexpr int kMaxNesting = 32;

struct Found {
  std::string name;
  const PickleTensor* tensor;
};

// Tensors of a (possibly nested) dict, named by their keys joined with '.'.
Status collect(const std::string& path, PickleRef value, const std::string& prefix, int depth,
               std::vector<Found>* found) {
  if (depth > kMaxNesting) return reader_error(path, "state_dict nested more than 32 deep");
  if (value->kind == Kind::kTensor) {
    found->push_back({prefix, &value->tensor});
    return Status();
  }
  if (value->kind != Kind::kDict) return Status();  // plain values (ints, strings) are not weights
  for (const auto& entry : value->entries) {
    if (entry.first->kind != Kind::kString) continue;
    const std::string name = prefix.empty() ? entry.first->s : prefix + "." + entry.first->s;
    FOCAL_RETURN_IF_ERROR(collect(path, entry.second, name, depth + 1, found));
  }
  return Status();
}

// Copies the (possibly strided) view out of its storage, after checking that every
// element it addresses lies inside the storage.
Result<CheckpointTensor> materialize(const std::string& path, const Found& f, const std::vector<uint8_t>& storage) {
  const PickleTensor& t = *f.tensor;
  CheckpointTensor out;
  out.name = f.name;
  out.type = t.storage.type;
  out.shape = t.shape;
  uint64_t bytes = 0;
  if (!checked_byte_size(out.type, out.shape, &bytes)) return reader_error(path, "tensor '" + f.name + "': size overflows");
  const size_t size = element_size(out.type);
  const int64_t count = out.element_count();
  out.bytes.resize(static_cast<size_t>(bytes));
  if (count == 0) return out;
  int64_t last = t.offset;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.stride[i] < 0 || t.shape[i] < 0) return reader_error(path, "tensor '" + f.name + "': negative stride");
    last += (t.shape[i] - 1) * t.stride[i];
  }
  if (t.offset < 0 || last >= t.storage.numel) {
    return reader_error(path, "tensor '" + f.name + "' reads past its storage of " +
                                  std::to_string(t.storage.numel) + " elements");
  }
  std::vector<int64_t> index(t.shape.size(), 0);
  for (int64_t e = 0; e < count; ++e) {
    int64_t at = t.offset;
    for (size_t i = 0; i < index.size(); ++i) at += index[i] * t.stride[i];
    std::memcpy(out.bytes.data() + static_cast<size_t>(e) * size, storage.data() + static_cast<size_t>(at) * size, size);
    for (size_t i = index.size(); i-- > 0;) {  // next index, row-major
      if (++index[i] < t.shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

Result<Checkpoint> read_pytorch(const std::string& path) {
  auto archive = ZipArchive::open(path);
  if (!archive.ok()) return archive.status();
  std::string prefix;
  bool found_pickle = false;
  for (const std::string& name : archive->names()) {
    if (name == "data.pkl" || (name.size() > 9 && name.compare(name.size() - 9, 9, "/data.pkl") == 0)) {
      prefix = name.substr(0, name.size() - 8);  // keeps the trailing '/'
      found_pickle = true;
      break;
    }
  }
  if (!found_pickle) return reader_error(path, "no data.pkl: not a torch.save archive");
  auto pickle_bytes = archive->read(prefix + "data.pkl", -1, kMaxPickleBytes);
  if (!pickle_bytes.ok()) return pickle_bytes.status();
  auto document = unpickle(pickle_bytes.value(), path + ": " + prefix + "data.pkl");
  if (!document.ok()) return document.status();

  if (document->root->kind != Kind::kDict) return reader_error(path, "the pickle is not a state_dict (a dict of tensors)");
  std::vector<Found> found;
  FOCAL_RETURN_IF_ERROR(collect(path, document->root, "", 0, &found));
  if (found.empty()) return reader_error(path, "the state_dict holds no tensors");

  Checkpoint checkpoint;
  checkpoint.path = path;
  std::string cached_key;
  std::vector<uint8_t> storage;
  for (const Found& f : found) {
    const PickleStorage& s = f.tensor->storage;
    if (s.key != cached_key || storage.empty()) {
      uint64_t bytes = 0;
      if (!checked_byte_size(s.type, {s.numel}, &bytes)) return reader_error(path, "storage " + s.key + " too large");
      auto data = archive->read(prefix + "data/" + s.key, static_cast<int64_t>(bytes), bytes);
      if (!data.ok()) return data.status();
      storage = std::move(data.value());
      cached_key = s.key;
    }
    auto tensor = materialize(path, f, storage);
    if (!tensor.ok()) return tensor.status();
    checkpoint.tensors.push_back(std::move(tensor.value()));
  }
  return checkpoint;
}

}  // namespace convert
}  // namespace focal
