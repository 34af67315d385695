// A pickle reader for torch.save's data.pkl that never executes anything: it knows the
// handful of opcodes a state_dict uses and a short list of globals (OrderedDict, the
// tensor rebuild functions and storage types), and refuses every other global by name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "focal/status.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {

struct PickleValue;
using PickleRef = PickleValue*;  // owned by the PickleDocument

// A storage referenced by a persistent id: ('storage', type, key, location, numel).
struct PickleStorage {
  ElementType type;
  std::string key;  // entry name under <archive>/data/
  int64_t numel;
};

// A tensor view of a storage, as torch._utils._rebuild_tensor_v2 describes it.
struct PickleTensor {
  PickleStorage storage;
  int64_t offset;  // in elements
  std::vector<int64_t> shape, stride;
};

struct PickleValue {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kTuple, kList, kDict, kGlobal, kStorage, kTensor };
  Kind kind = Kind::kNone;
  int64_t i = 0;
  double f = 0;
  std::string s;                                    // string, or "module.name" of a global
  std::vector<PickleRef> items;                     // tuple, list
  std::vector<std::pair<PickleRef, PickleRef>> entries;  // dict (in insertion order)
  PickleStorage storage;
  PickleTensor tensor;
};

// Every value of one pickle, owned flat (so a hostile pickle's cycles or deep nesting
// cannot leak or recurse when freed), and the root value.
struct PickleDocument {
  std::vector<std::unique_ptr<PickleValue>> values;
  PickleRef root = nullptr;
};

// Parses `bytes` (the pickle); `where` names it in errors.
Result<PickleDocument> unpickle(const std::vector<uint8_t>& bytes, const std::string& where);

}  // namespace convert
}  // namespace focal
