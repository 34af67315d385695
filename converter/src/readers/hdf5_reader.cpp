// HDF5 weight files (Keras .h5: model.save_weights / model.save; the model.weights.h5
// inside a Keras 3 .keras archive), read through Debian's libhdf5: every dataset (but
// the optimizer's state) becomes
// a tensor named by its path without the leading '/' (e.g.
// "model_weights/dense/dense/kernel:0", "layers/dense/vars/0"). Float datasets are read
// as f32, integer ones as i64; anything else is refused, naming the dataset. A hostile
// file's declared sizes are bounded before anything is read: no dataset may hold more
// than 2^31 elements nor more than 64 times the file's bytes, and all of them together
// at most kInflateFactor times the file (read_budget.h; compression cannot gain more
// than that here).
//
// libhdf5 reaches past the file when the file asks it to (issue 32): external storage
// reads a dataset's bytes from any local file (a FIFO blocks), a virtual dataset maps
// another HDF5 file, an external link opens one, and a filter it does not build in is
// loaded as a plugin from HDF5_PLUGIN_PATH. Each dataset's creation properties are
// checked before its data is read, and each of these is refused by name; only hard
// links are walked; plugin loading is switched off. A chunked dataset inflates whole
// chunks whatever it reads of them, so its chunks are bounded too: no more elements
// than the dataset (or 64 Ki) and no more bytes than the budget has left, with a small
// chunk cache.
//
// Checks cannot make libhdf5 1.10 safe on a hostile file: a few changed bytes of a small
// Keras file crash it (SIGSEGV in H5VM_memcpyvv and H5F__accum_read, SIGFPE in
// H5D__chunk_set_info). So libhdf5 runs only in a child process (isolated_reader.h)
// under address-space, CPU-time and open-file limits; it sends the tensors back as they
// are read (tensor_stream.h), and a crash becomes an error naming the file. This was
// chosen over a restricted HDF5 reader of our own (as the restricted unpickler is for
// torch.save): Keras files use the B-trees, heaps, object headers, chunk indexes and
// filters of several HDF5 format versions, a large surface to reimplement and keep
// right, while the child keeps libhdf5's complete reading of real files and costs one
// fork per file (about a millisecond). This process never calls libhdf5 at all.
#include <hdf5.h>
#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

#include "readers/checkpoint.h"
#include "readers/isolated_reader.h"
#include "readers/read_budget.h"
#include "readers/tensor_stream.h"

namespace focal {
namespace convert {
namespace {

struct Visit {
  std::string path;
  uint64_t file_bytes = 0;
  int out_fd = -1;  // the tensors go to the parent process as they are read
  size_t sent = 0;
  ReadBudget* budget = nullptr;
  std::vector<std::string> skipped;  // datasets under these prefixes are not read
  Status status;
};

// RAII for an HDF5 id.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

// The dataset's dims into tensor->shape and its element count, bounded by 2^31 and by
// what the file can hold.
Status read_shape(const Visit& v, hid_t space, const std::string& name, CheckpointTensor* tensor, uint64_t* count) {
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0 || rank > 8) return reader_error(v.path, "dataset '" + name + "' has an unsupported rank");
  hsize_t dims[8] = {};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  *count = 1;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] > (uint64_t(1) << 31) || *count > (uint64_t(1) << 31) / (dims[i] ? dims[i] : 1)) {
      return reader_error(v.path, "dataset '" + name + "' is larger than 2^31 elements");
    }
    *count *= dims[i];
    tensor->shape.push_back(static_cast<int64_t>(dims[i]));
  }
  if (*count > 64 * v.file_bytes + 1024) {
    return reader_error(v.path, "dataset '" + name + "' declares more elements than the file can hold");
  }
  return Status();
}

Status dataset_error(const Visit& v, const std::string& name, const std::string& what) {
  return reader_error(v.path, "dataset '" + name + "' " + what);
}

// Filters libhdf5 builds in; any other would be loaded as a plugin (a shared library
// the file names by number).
bool builtin_filter(H5Z_filter_t filter) {
  return filter == H5Z_FILTER_DEFLATE || filter == H5Z_FILTER_SHUFFLE || filter == H5Z_FILTER_FLETCHER32;
}

Status check_filters(const Visit& v, hid_t create, const std::string& name) {
  const int filters = H5Pget_nfilters(create);
  if (filters < 0) return dataset_error(v, name, "has an unreadable filter pipeline");
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0, config = 0;
    unsigned values[16] = {};
    size_t value_count = 16;
    char filter_name[64] = {};
    const H5Z_filter_t filter = H5Pget_filter2(create, static_cast<unsigned>(i), &flags, &value_count, values,
                                               sizeof(filter_name), filter_name, &config);
    if (filter < 0) return dataset_error(v, name, "has an unreadable filter pipeline");
    if (!builtin_filter(filter)) {
      filter_name[sizeof(filter_name) - 1] = 0;
      return dataset_error(v, name, "uses HDF5 filter " + std::to_string(filter) + " (" + filter_name +
                                        "), not one of libhdf5's built-in deflate, shuffle and fletcher32 (the "
                                        "converter loads no filter plugins)");
    }
  }
  return Status();
}

// A chunk is inflated whole: it may hold no more elements than the dataset (or 64 Ki,
// for small resizable ones) and no more bytes than the budget has left.
Status check_chunks(const Visit& v, hid_t create, const std::string& name, uint64_t count, size_t element_bytes) {
  hsize_t dims[32] = {};
  const int rank = H5Pget_chunk(create, 32, dims);
  if (rank <= 0 || rank > 32) return dataset_error(v, name, "has an unreadable chunk shape");
  uint64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] == 0 || elements > (uint64_t(1) << 40) / dims[i]) {
      return dataset_error(v, name, "has a chunk shape over 2^40 elements");
    }
    elements *= dims[i];
  }
  const uint64_t bound = count > (uint64_t(1) << 16) ? count : uint64_t(1) << 16;
  if (elements > bound) {
    return dataset_error(v, name, "of " + std::to_string(count) + " elements is stored in chunks of " +
                                      std::to_string(elements) + " elements (at most " + std::to_string(bound) +
                                      ": a chunk is inflated whole)");
  }
  const uint64_t left = v.budget->limit() - v.budget->used();
  if (elements * element_bytes > left) {
    return dataset_error(v, name, "is stored in chunks of " + std::to_string(elements * element_bytes) +
                                      " bytes, over the " + std::to_string(left) + " bytes left of the budget");
  }
  return Status();
}

// Refuses, by name and before any data is read, what would make libhdf5 read another
// file or load a library, and chunks larger than the budget.
Status check_storage(const Visit& v, hid_t dataset, hid_t file_type, const std::string& name, uint64_t count) {
  const Id create{H5Dget_create_plist(dataset), H5Pclose};
  if (create.id < 0) return dataset_error(v, name, "has unreadable storage properties");
  const int external = H5Pget_external_count(create.id);
  if (external != 0) {
    return dataset_error(v, name, "keeps its data in " + std::to_string(external) + " external file" +
                                      (external == 1 ? "" : "s") +
                                      " (HDF5 external storage), which the converter does not read");
  }
  const H5D_layout_t layout = H5Pget_layout(create.id);
  if (layout == H5D_VIRTUAL) {
    return dataset_error(v, name, "is a virtual dataset (its elements come from other HDF5 files), which the "
                                  "converter does not read");
  }
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) {
    return dataset_error(v, name, "has an unknown storage layout");
  }
  FOCAL_RETURN_IF_ERROR(check_filters(v, create.id, name));
  const size_t element_bytes = H5Tget_size(file_type);
  if (element_bytes == 0 || element_bytes > 16) return dataset_error(v, name, "has an unsupported element size");
  if (layout == H5D_CHUNKED) FOCAL_RETURN_IF_ERROR(check_chunks(v, create.id, name, count, element_bytes));
  return Status();
}

Status read_dataset(Visit& v, hid_t dataset, const std::string& name) {
  const Id space{H5Dget_space(dataset), H5Sclose};
  const Id type{H5Dget_type(dataset), H5Tclose};
  if (space.id < 0 || type.id < 0) return reader_error(v.path, "dataset '" + name + "' has no readable shape");
  CheckpointTensor tensor;
  tensor.name = name;
  uint64_t count = 0;
  FOCAL_RETURN_IF_ERROR(read_shape(v, space.id, name, &tensor, &count));
  const H5T_class_t type_class = H5Tget_class(type.id);
  hid_t memory_type = -1;
  if (type_class == H5T_FLOAT) {
    tensor.type = ElementType::kF32;
    memory_type = H5T_NATIVE_FLOAT;
  } else if (type_class == H5T_INTEGER) {
    tensor.type = ElementType::kI64;
    memory_type = H5T_NATIVE_LLONG;
  } else {
    return reader_error(v.path, "dataset '" + name + "' is neither float nor integer");
  }
  FOCAL_RETURN_IF_ERROR(check_storage(v, dataset, type.id, name, count));
  const uint64_t bytes = count * element_size(tensor.type);
  FOCAL_RETURN_IF_ERROR(v.budget->charge(v.path, "dataset '" + name + "'", bytes));
  tensor.bytes.resize(static_cast<size_t>(bytes));
  if (count > 0 && H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor.bytes.data()) < 0) {
    return reader_error(v.path, "dataset '" + name + "' could not be read (corrupt or unsupported)");
  }
  if (!send_tensor(v.out_fd, tensor)) return reader_error(v.path, "the converter stopped reading");
  ++v.sent;
  return Status();
}

herr_t visit_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto& v = *static_cast<Visit*>(data);
  if (info->type != H5L_TYPE_HARD) return 0;  // soft and external links are not followed
  for (const std::string& prefix : v.skipped) {
    if (std::string(name).rfind(prefix, 0) == 0) return 0;
  }
  {
    const Id object{H5Oopen(group, name, H5P_DEFAULT), H5Oclose};
    if (object.id < 0 || H5Iget_type(object.id) != H5I_DATASET) return 0;
  }
  // Opened again as a dataset, with a small chunk cache (libhdf5's default is 1 MiB per
  // dataset; chunks larger than the cache are read around it).
  const Id access{H5Pcreate(H5P_DATASET_ACCESS), H5Pclose};
  if (access.id < 0 || H5Pset_chunk_cache(access.id, 101, size_t(1) << 18, 0.75) < 0) {
    v.status = reader_error(v.path, "libhdf5 cannot make a dataset access list");
    return -1;
  }
  const Id dataset{H5Dopen2(group, name, access.id), H5Dclose};
  if (dataset.id < 0) {
    v.status = dataset_error(v, name, "could not be opened (corrupt or unsupported)");
    return -1;
  }
  v.status = read_dataset(v, dataset.id, name);
  return v.status.ok() ? 0 : -1;
}

// In the reader process: every dataset of an open file but those under `skipped`, sent
// to `fd`; `path` names the file in errors.
Status send_datasets(hid_t file, const std::string& path, uint64_t file_bytes, const std::vector<std::string>& skipped,
                     int fd) {
  ReadBudget budget("HDF5 dataset bytes", file_bytes, kInflateFactor);
  Visit v;
  v.path = path;
  v.file_bytes = file_bytes;
  v.out_fd = fd;
  v.budget = &budget;
  v.skipped = skipped;
  const herr_t walked = H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit_link, &v);
  if (!v.status.ok()) return v.status;
  if (walked < 0) return reader_error(path, "the HDF5 file's groups could not be walked (corrupt)");
  if (v.sent == 0) return reader_error(path, "no datasets");
  return Status();
}

// Errors become Status values, not prints, and no filter (or other) plugin is ever
// loaded, whatever HDF5_PLUGIN_PATH says.
void quiet_library() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5PLset_loading_state(0);
}

// Limits of the reader process: the tensors it may send (the budget) plus the file (the
// core driver copies an image) plus 256 MiB for libhdf5 itself; 10 CPU seconds plus one
// per 128 MiB it may send (inflating runs at several times that).
IsolationLimits reader_limits(uint64_t file_bytes, uint64_t budget_bytes) {
  IsolationLimits limits;
  limits.memory_bytes = budget_bytes + file_bytes + (uint64_t(256) << 20);
  const uint64_t seconds = 10 + budget_bytes / (uint64_t(128) << 20);
  limits.cpu_seconds = static_cast<unsigned>(seconds < 3600 ? seconds : 3600);
  limits.wall_seconds = 3 * limits.cpu_seconds;
  return limits;
}

// Runs open_and_send (which opens the file with libhdf5 and calls send_datasets) in a
// reader process and receives its tensors, bounded by a budget of this process's own.
Result<Checkpoint> read_isolated(const std::string& path, uint64_t file_bytes,
                                 const std::function<Status(int fd)>& open_and_send) {
  ReadBudget budget("HDF5 dataset bytes", file_bytes, kInflateFactor);
  Checkpoint checkpoint;
  const auto child = [&](int fd) {
    quiet_library();
    const Status read = open_and_send(fd);
    return read.ok() ? send_end(fd) : send_error(fd, read);
  };
  const auto parent = [&](ChildStream& stream) {
    auto received = receive_checkpoint(stream, path, budget);
    if (!received.ok()) return received.status();
    checkpoint = std::move(received.value());
    return Status();
  };
  FOCAL_RETURN_IF_ERROR(run_isolated(path, reader_limits(file_bytes, budget.limit()), child, parent));
  return checkpoint;
}

}  // namespace

// The file is opened in the reader process; only its size is looked at here.
Result<Checkpoint> read_hdf5(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  struct stat info {};  // only the size is needed, to bound the datasets
  if (stat(path.c_str(), &info) != 0) return Status::error(StatusCode::kIoError, "cannot open %s", path.c_str());
  const auto file_bytes = static_cast<uint64_t>(info.st_size);
  return read_isolated(path, file_bytes, [&](int fd) {
    const Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    if (file.id < 0) return reader_error(path, "not a readable HDF5 file");
    // Keras 2's model.save("m.h5") keeps the optimizer's slots (shaped like the weights
    // they train) under optimizer_weights/, Keras 3's save_weights("m.weights.h5") under
    // optimizer/: training state, not the model.
    return send_datasets(file.id, path, file_bytes, {"optimizer_weights/", "optimizer/"}, fd);
  });
}

// The core (in-memory) driver opens the image without a file; the reader process has
// the image as a copy-on-write copy of this one's memory.
Result<Checkpoint> read_hdf5_image(const std::string& path, const std::vector<uint8_t>& image,
                                   const std::vector<std::string>& skipped) {
  if (image.empty()) return reader_error(path, "an empty HDF5 image");
  return read_isolated(path, image.size(), [&](int fd) {
    const Id access{H5Pcreate(H5P_FILE_ACCESS), H5Pclose};
    if (access.id < 0 || H5Pset_fapl_core(access.id, 1 << 16, /*backing_store=*/0) < 0 ||
        H5Pset_file_image(access.id, const_cast<uint8_t*>(image.data()), image.size()) < 0) {
      return reader_error(path, "libhdf5 cannot open an in-memory file image");
    }
    const Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.id), H5Fclose};
    if (file.id < 0) return reader_error(path, "not a readable HDF5 file");
    return send_datasets(file.id, path, image.size(), skipped, fd);
  });
}

}  // namespace convert
}  // namespace focal
