// Checkpoints as the converter sees them: named tensors with an element type, a shape
// and their bytes (little-endian, row-major), whatever file they came from. Readers
// never execute anything from a file, bound every allocation by the file's own size,
// and refuse malformed input with a message naming the file, the entry and the problem.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "focal/internal/element_types.h"
#include "focal/status.h"

namespace focal {
namespace convert {

// The engine's one element type table (focal/internal/element_types.h); checkpoints
// hold every type but kI4.
using ElementType = focal::ElementType;

// The table's name in capitals, as safetensors spells it: "F32", "BOOL".
const char* element_type_name(ElementType type);
inline size_t element_size(ElementType type) { return element_type_row(type).bytes; }

struct CheckpointTensor {
  std::string name;
  ElementType type = ElementType::kF32;
  std::vector<int64_t> shape;
  // The element_size(type) * product(shape) bytes: owned here, or, for a reader that maps
  // its file (safetensors), a view into the mapping that `mapping` keeps alive, so a
  // checkpoint is not copied into memory before its tensors are converted.
  std::vector<uint8_t> bytes;
  const uint8_t* view = nullptr;
  size_t view_bytes = 0;
  std::shared_ptr<const void> mapping;

  const uint8_t* data() const { return view != nullptr ? view : bytes.data(); }
  size_t byte_size() const { return view != nullptr ? view_bytes : bytes.size(); }
  int64_t element_count() const;
  // Every element converted to float (integers and bools by value; f64 rounded).
  std::vector<float> to_f32() const;
  // For a view: hands the mapped pages wholly inside it back to the OS (they are read
  // from the file again if used again), so converting a checkpoint tensor by tensor
  // keeps only the tensor at hand resident. Nothing for owned bytes.
  void release_pages() const;
  // Every element as an exact int32 (token ids, masks), never through float: integers and
  // bools by value, and floats that hold a whole number (masks saved as 0.0 / 1.0). A value
  // outside int32, a fraction, NaN or an infinity is refused with a message naming the
  // tensor, the element's index and its value.
  Result<std::vector<int32_t>> to_i32() const;
};

struct Checkpoint {
  std::string path;
  std::vector<CheckpointTensor> tensors;  // in the file's order

  const CheckpointTensor* find(const std::string& name) const;
};

// Picks the reader by the file's first bytes: a zip archive holding model.weights.h5
// (a Keras 3 .keras archive), data.pkl (torch.save) or .npy members (NumPy .npz), a
// NumPy .npy file, an HDF5 file (Keras .h5), else safetensors. The legacy
// (pre-1.6, non-zip) torch.save format is refused with advice on re-saving it.
Result<Checkpoint> read_checkpoint(const std::string& path);

Result<Checkpoint> read_safetensors(const std::string& path);
Result<Checkpoint> read_pytorch(const std::string& path);
Result<Checkpoint> read_npz(const std::string& path);
Result<Checkpoint> read_npy(const std::string& path);
// HDF5 (Keras .h5 weights): every dataset, named by its path, but the optimizer's state
// (training state: Keras 2's optimizer_weights/, Keras 3's optimizer/).
Result<Checkpoint> read_hdf5(const std::string& path);
// Every dataset of an HDF5 file's bytes in memory but those under the `skipped` path
// prefixes; `path` names it in errors.
Result<Checkpoint> read_hdf5_image(const std::string& path, const std::vector<uint8_t>& image,
                                   const std::vector<std::string>& skipped);
// Keras 3 .keras archives: the model weights of their model.weights.h5, named by their
// paths in it (layers/<layer>/.../vars/<i>); the optimizer's state is left out.
constexpr const char* kKerasWeightsMember = "model.weights.h5";
bool is_keras_archive(const std::string& path);
Result<Checkpoint> read_keras_archive(const std::string& path);

// Helpers shared by the readers.
bool checked_byte_size(ElementType type, const std::vector<int64_t>& shape, uint64_t* bytes);
Status reader_error(const std::string& path, const std::string& what);
Result<std::vector<uint8_t>> read_whole_file(const std::string& path);
// The file mapped read-only (an empty file maps to nothing); the pointer stays valid
// while the returned owner lives.
struct MappedFile {
  std::shared_ptr<const void> owner;
  const uint8_t* data = nullptr;
  size_t size = 0;
};
Result<MappedFile> map_whole_file(const std::string& path);
// Every reader of the converter and the CLI calls this before opening a file: a
// directory, FIFO, socket or device is refused with "<path> is not a regular file"
// (opening a FIFO would block until a writer comes; reading a directory fails late and
// obscurely). It looks with stat(), so nothing is opened.
Status check_regular_file(const std::string& path);

}  // namespace convert
}  // namespace focal
