// torch.save files (PyTorch >= 1.6): a zip archive holding <name>/data.pkl, a pickle of
// the state_dict whose tensors point at storages <name>/data/<key> by persistent id.
#include <algorithm>
#include <cstring>

#include "readers/checked_math.h"
#include "readers/checkpoint.h"
#include "readers/read_budget.h"
#include "readers/restricted_unpickler.h"
#include "readers/zip_archive.h"

namespace focal {
namespace convert {
namespace {

using Kind = PickleValue::Kind;

constexpr uint64_t kMaxPickleBytes = 1u << 30;
constexpr int kMaxNesting = 32;
constexpr size_t kMaxNameBytes = 4096;  // a joined tensor name; real ones are < 200

// How many dict entries the walk over the state_dict may still visit.
struct CollectBudget {
  size_t visits_left;
};

struct Found {
  std::string name;
  const PickleTensor* tensor;
};

// Tensors of a (possibly nested) dict, named by their keys joined with '.'.
Status collect(const std::string& path, PickleRef value, const std::string& prefix, int depth,
               CollectBudget* budget, std::vector<Found>* found) {
  if (depth > kMaxNesting) return reader_error(path, "state_dict nested more than 32 deep");
  if (prefix.size() > kMaxNameBytes) return reader_error(path, "a tensor name longer than 4096 bytes");
  if (value->kind == Kind::kTensor) {
    found->push_back({prefix, &value->tensor});
    return Status();
  }
  if (value->kind != Kind::kDict) return Status();  // plain values (ints, strings) are not weights
  for (const auto& entry : value->entries) {
    if (budget->visits_left == 0) {
      return reader_error(path, "the state_dict's shared sub-dicts expand to more entries than the pickle has "
                                "values (the budget for reference expansion)");
    }
    --budget->visits_left;
    if (entry.first->kind != Kind::kString) continue;
    const std::string name = prefix.empty() ? entry.first->s : prefix + "." + entry.first->s;
    FOCAL_RETURN_IF_ERROR(collect(path, entry.second, name, depth + 1, budget, found));
  }
  return Status();
}

// The last element a view addresses, in storage elements: offset + sum((shape - 1) *
// stride), computed with overflow checks; false when a stride or offset is negative,
// the sum overflows, or it lies outside a storage of `numel` elements. Views of no
// elements address nothing and always fit.
bool view_fits(const PickleTensor& t, int64_t numel, int64_t* last) {
  for (int64_t d : t.shape) {
    if (d == 0) {
      *last = -1;
      return t.offset >= 0;
    }
  }
  int64_t end = t.offset;
  if (end < 0) return false;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    int64_t reach = 0;
    if (t.stride[i] < 0 || t.shape[i] < 0 || !checked_mul(t.shape[i] - 1, t.stride[i], &reach) ||
        !checked_add(end, reach, &end)) {
      return false;
    }
  }
  *last = end;
  return end < numel;
}

Status check_view(const std::string& path, const Found& f) {
  const PickleTensor& t = *f.tensor;
  uint64_t bytes = 0;
  if (!checked_byte_size(t.storage.type, t.shape, &bytes)) return reader_error(path, "tensor '" + f.name + "': size overflows");
  int64_t last = 0;
  if (!view_fits(t, t.storage.numel, &last)) {
    return reader_error(path, "tensor '" + f.name + "' (offset " + std::to_string(t.offset) +
                                  ") addresses elements outside its storage " + t.storage.key + " of " +
                                  std::to_string(t.storage.numel) + " elements, or has a negative stride");
  }
  return Status();
}

// Copies the (possibly strided) view out of its storage; check_view has bounded every
// index, so the arithmetic below cannot overflow or leave the storage.
CheckpointTensor materialize(const Found& f, const std::vector<uint8_t>& storage) {
  const PickleTensor& t = *f.tensor;
  CheckpointTensor out;
  out.name = f.name;
  out.type = t.storage.type;
  out.shape = t.shape;
  const size_t size = element_size(out.type);
  const int64_t count = out.element_count();
  out.bytes.resize(static_cast<size_t>(count) * size);
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

// The archive's folder holding data.pkl ("name/", with its '/'), or an error.
Result<std::string> pickle_prefix(const std::string& path, const ZipArchive& archive) {
  for (const std::string& name : archive.names()) {
    if (name == "data.pkl" || (name.size() > 9 && name.compare(name.size() - 9, 9, "/data.pkl") == 0)) {
      return name.substr(0, name.size() - 8);  // keeps the trailing '/'
    }
  }
  return reader_error(path, "no data.pkl: not a torch.save archive");
}

// The state_dict's tensors, each view checked against its storage, and the tensor bytes
// against the budget, before any storage is inflated.
Result<std::vector<Found>> found_tensors(const std::string& path, const PickleDocument& document,
                                         uint64_t file_bytes) {
  if (document.root->kind != Kind::kDict) return reader_error(path, "the pickle is not a state_dict (a dict of tensors)");
  std::vector<Found> found;
  // Shared sub-dicts are walked once per reference: the walk may visit as many entries
  // as the pickle has values, so it is linear in the pickle however it nests.
  CollectBudget budget{document.values.size()};
  FOCAL_RETURN_IF_ERROR(collect(path, document.root, "", 0, &budget, &found));
  if (found.empty()) return reader_error(path, "the state_dict holds no tensors");
  ReadBudget tensor_budget("tensor bytes", file_bytes, kMaterializeFactor);
  for (const Found& f : found) {
    FOCAL_RETURN_IF_ERROR(check_view(path, f));
    uint64_t bytes = 0;
    checked_byte_size(f.tensor->storage.type, f.tensor->shape, &bytes);  // checked by check_view
    FOCAL_RETURN_IF_ERROR(tensor_budget.charge(path, "tensor '" + f.name + "'", bytes));
  }
  return found;
}

// The tensors' values, each storage read once for all the tensors that view it and
// freed after.
Result<Checkpoint> materialize_all(const std::string& path, ZipArchive& archive, const std::string& prefix,
                                   const std::vector<Found>& found) {
  std::vector<size_t> by_storage(found.size());
  for (size_t i = 0; i < found.size(); ++i) by_storage[i] = i;
  std::stable_sort(by_storage.begin(), by_storage.end(), [&](size_t a, size_t b) {
    return found[a].tensor->storage.key < found[b].tensor->storage.key;
  });
  Checkpoint checkpoint;
  checkpoint.path = path;
  checkpoint.tensors.resize(found.size());
  const std::string* cached_key = nullptr;
  std::vector<uint8_t> storage;
  for (size_t i : by_storage) {
    const PickleStorage& s = found[i].tensor->storage;
    if (cached_key == nullptr || s.key != *cached_key) {
      uint64_t bytes = 0;
      if (!checked_byte_size(s.type, {s.numel}, &bytes)) return reader_error(path, "storage " + s.key + " too large");
      std::vector<uint8_t>().swap(storage);
      auto data = archive.read(prefix + "data/" + s.key, static_cast<int64_t>(bytes), bytes);
      if (!data.ok()) return data.status();
      storage = std::move(data.value());
      cached_key = &s.key;
    }
    checkpoint.tensors[i] = materialize(found[i], storage);
  }
  return checkpoint;
}

}  // namespace

Result<Checkpoint> read_pytorch(const std::string& path) {
  auto archive = ZipArchive::open(path);
  if (!archive.ok()) return archive.status();
  Result<std::string> prefix = pickle_prefix(path, archive.value());
  if (!prefix.ok()) return prefix.status();
  auto pickle_bytes = archive->read(*prefix + "data.pkl", -1, kMaxPickleBytes);
  if (!pickle_bytes.ok()) return pickle_bytes.status();
  auto document = unpickle(pickle_bytes.value(), path + ": " + *prefix + "data.pkl");
  if (!document.ok()) return document.status();
  Result<std::vector<Found>> found = found_tensors(path, document.value(), archive->file_bytes());
  if (!found.ok()) return found.status();
  return materialize_all(path, archive.value(), *prefix, found.value());
}

}  // namespace convert
}  // namespace focal
