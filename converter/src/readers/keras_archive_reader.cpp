// Keras 3 `.keras` archives (model.save("m.keras")): a zip of config.json,
// metadata.json and model.weights.h5 (keras/src/saving/saving_lib.py, H5IOStore). The
// weights file holds one group per saveable at its attribute path, its variables as
// datasets vars/0, vars/1, ... in creation order: layers/<layer>/vars/<i>, and nested
// sublayers and cells under their attribute names, e.g.
// layers/bidirectional/forward_layer/cell/vars/0. Tensors keep those paths as names.
// The optimizer's slots (optimizer/vars/<i>, shaped like the weights they train) are
// training state, not the model, and are left out. The member is bounded by the
// archive's inflation budget (read_budget.h) before it is inflated.
#include "readers/checkpoint.h"
#include "readers/zip_archive.h"

namespace focal {
namespace convert {

// Keras writes config.json and metadata.json into every archive (saving_lib.py
// _save_model_to_fileobj); torch.save and .npz archives hold neither.
bool is_keras_archive(const std::string& path) {
  auto archive = ZipArchive::open(path);
  return archive.ok() && archive->contains("config.json") && archive->contains("metadata.json");
}

Result<Checkpoint> read_keras_archive(const std::string& path) {
  auto archive = ZipArchive::open(path);
  if (!archive.ok()) return archive.status();
  if (!archive->contains(kKerasWeightsMember)) {
    return reader_error(
        path, std::string("a .keras archive without ") + kKerasWeightsMember +
                  " (re-save it with model.save(\"model.keras\"), whose weights are HDF5)");
  }
  auto image = archive->read(kKerasWeightsMember, -1, max_materialized_bytes());
  if (!image.ok()) return image.status();
  auto checkpoint = read_hdf5_image(path + ": " + kKerasWeightsMember, image.value(), {"optimizer/"});
  if (checkpoint.ok()) checkpoint->path = path;
  return checkpoint;
}

}  // namespace convert
}  // namespace focal
