// libFuzzer, structure-aware: each input is a checkpoint file, and the custom mutator
// changes it the way a forger would while keeping its envelope valid. A torch.save zip
// has its pickle's opcodes mutated (pickle_mutator.h), its members renamed, dropped,
// duplicated, recompressed or replaced by a highly compressible bomb, or a header field
// made to lie (zip_rewriter.h); the zip is rewritten with correct CRCs unless the lie is
// about them. .npz members and .npy files get their array headers mutated
// (npy_mutator.h), safetensors its JSON header and length (safetensors_mutator.h). The
// readers are called as fuzz_checkpoint.cpp calls them: refuse or accept, never crash,
// leak, overread or allocate without bound.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "npy_mutator.h"
#include "pickle_mutator.h"
#include "readers/checkpoint.h"
#include "safetensors_mutator.h"
#include "zip_rewriter.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using focal::fuzz::Random;
using focal::fuzz::ZipMember;

constexpr size_t kMaxInflatedMember = size_t(16) << 20;  // what the mutator itself inflates
constexpr size_t kMaxBombBytes = size_t(4) << 20;  // zeros in a zip-bomb member: 1000:1 deflated

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Index of a member whose name ends with `suffix`, or -1.
int find_member(const std::vector<ZipMember>& members, const char* suffix) {
  for (size_t i = 0; i < members.size(); ++i) {
    if (ends_with(members[i].name, suffix)) return static_cast<int>(i);
  }
  return -1;
}

std::string other_name(const std::vector<ZipMember>& members, const std::string& name,
                       Random& random) {
  switch (random.below(5)) {
    case 0:
      return members[random.below(members.size())].name;  // a duplicate name
    case 1:
      return name.substr(name.find('/') + 1);  // out of its directory
    case 2:
      return "../" + name;
    case 3:
      return name + focal::fuzz::interesting_text(random);
    default:
      return name.empty()
                 ? name
                 : name.substr(0, name.size() - 1) + static_cast<char>('0' + random.below(10));
  }
}

void mutate_members(std::vector<ZipMember>& members, Random& random) {
  const size_t i = random.below(members.size());
  const auto at = members.begin() + static_cast<std::ptrdiff_t>(i);
  switch (random.below(6)) {
    case 0:
      members[i].name = other_name(members, members[i].name, random);
      break;
    case 1:
      if (members.size() > 1) members.erase(at);
      break;
    case 2:
      members.insert(at, members[i]);
      break;
    case 3:
      std::swap(members[i], members[random.below(members.size())]);
      break;
    case 4:
      if (focal::fuzz::inflate_member(members[i], kMaxInflatedMember))
        members[i].method = members[i].method == 8 ? 0 : 8;
      break;
    default: {  // a bomb: megabytes of zeros in a few kilobytes of deflate
      members[i] =
          ZipMember{members[i].name, 8, std::vector<uint8_t>(kMaxBombBytes >> random.below(5), 0)};
      break;
    }
  }
}

// A few values inside a storage member: NaN and Inf weights, huge ids.
void mutate_storage(std::vector<ZipMember>& members, Random& random) {
  ZipMember& m = members[random.below(members.size())];
  if (ends_with(m.name, ".pkl") || !focal::fuzz::inflate_member(m, kMaxInflatedMember) ||
      m.contents.size() < 4)
    return;
  const uint32_t value = focal::fuzz::float_bits(focal::fuzz::interesting_float(random));
  std::memcpy(m.contents.data() + random.below(m.contents.size() / 4) * 4, &value, 4);
}

std::vector<uint8_t> mutate_zip(const std::vector<uint8_t>& file, Random& random) {
  std::vector<ZipMember> members;
  if (!focal::fuzz::parse_zip(file.data(), file.size(), &members) || members.empty()) return {};
  focal::fuzz::ZipLie lie;
  const int pickle = find_member(members, ".pkl");
  const int array = find_member(members, ".npy");
  const size_t choice = random.below(10);
  if (choice < 5 && pickle >= 0) {
    ZipMember& m = members[static_cast<size_t>(pickle)];
    if (!focal::fuzz::inflate_member(m, kMaxInflatedMember)) return {};
    m.contents =
        focal::fuzz::mutate_pickle(m.contents, 1 + static_cast<int>(random.below(2)), random);
  } else if (choice < 6 && array >= 0) {
    std::vector<ZipMember*> arrays;
    for (ZipMember& m : members) {
      if (ends_with(m.name, ".npy")) arrays.push_back(&m);
    }
    ZipMember& m = *arrays[random.below(arrays.size())];
    if (!focal::fuzz::inflate_member(m, kMaxInflatedMember)) return {};
    std::vector<uint8_t> mutated = focal::fuzz::mutate_npy(m.contents, random);
    if (!mutated.empty()) m.contents = std::move(mutated);
  } else if (choice < 8) {
    mutate_members(members, random);
  } else if (choice < 9) {
    lie = focal::fuzz::random_zip_lie(members.size(), random);
  } else {
    mutate_storage(members, random);
  }
  return focal::fuzz::write_zip(members, lie);
}

std::vector<uint8_t> mutate_structure(const std::vector<uint8_t>& file, Random& random) {
  if (file.size() >= 4 && std::memcmp(file.data(), "PK\x03\x04", 4) == 0)
    return mutate_zip(file, random);
  if (file.size() >= 6 && std::memcmp(file.data(), "\x93NUMPY", 6) == 0)
    return focal::fuzz::mutate_npy(file, random);
  return focal::fuzz::mutate_safetensors(file, random);
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Random random(seed);
  std::vector<uint8_t> mutated;
  if (!random.one_in(10))
    mutated = mutate_structure(std::vector<uint8_t>(data, data + size), random);
  if (!mutated.empty() && mutated.size() <= max_size) {
    std::memcpy(data, mutated.data(), mutated.size());
    return mutated.size();
  }
  return LLVMFuzzerMutate(data, size, max_size);  // bytes, for what no structure fits
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // HDF5 goes to Debian's libhdf5, which this does not fuzz (see fuzz_checkpoint.cpp).
  if (size >= 8 && std::memcmp(data, "\x89HDF\r\n\x1a\n", 8) == 0) return 0;
  static const std::string path =
      "/tmp/focal_fuzz_checkpoint_structured_" + std::to_string(getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  // A Keras 3 archive's weights are HDF5 as well: its zip is ours to fuzz, the member not.
  if (focal::convert::is_keras_archive(path)) return 0;
  (void)focal::convert::read_checkpoint(path);
  return 0;
}
