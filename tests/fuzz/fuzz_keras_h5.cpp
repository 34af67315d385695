// libFuzzer, structure-aware: the input bytes are a program that builds a Keras-style
// HDF5 file with libhdf5's own writing API, in memory (the core driver, no backing
// store): groups and datasets at paths made of Keras's names (model_weights/<layer>/
// <layer>/kernel:0, layers/<layer>/.../vars/<i>, optimizer_weights/, optimizer/) or
// arbitrary ones; datasets of every HDF5 type class (floats of 2 to 16 bytes in both byte
// orders, integers with odd precisions, enums, strings, compounds, arrays, references,
// variable-length types, committed types), shapes from scalar and null spaces to large
// declared extents, compact, contiguous, chunked, external and virtual storage, the
// shuffle, deflate, fletcher32, n-bit, scale-offset and szip filters, fill values with
// every fill and allocation time, written or not; the attributes Keras writes
// (layer_names, weight_names, keras_version, backend, model_config JSON) and others; soft,
// external and hard links; B-tree, heap and object-header formats of every library
// version bound, dense link and attribute storage, user blocks. The image is then read
// the way `focal convert` reads a checkpoint, read_checkpoint() on a file: as a .h5, or
// as the model.weights.h5 of a .keras zip (with config.json and metadata.json). What
// reads must be consistent (every tensor's bytes match its shape, the optimizer's state
// is skipped, a float32 dataset written whole reads back exactly) and goes on into the
// keras-classifier preset, which maps Keras names and shapes to the graph.
//
// Why a generator and not byte mutation of HDF5 files: libhdf5 checksums most metadata
// of newer formats and refuses a mutated byte early, so byte-level fuzzing spends its
// executions on libhdf5's own parser (which the converter isolates in a child process,
// and whose bugs are not ours to fix). A program of structure reaches the converter's
// checks (storage kinds, filters, chunk bounds, element types, shapes and budgets, the
// records between the reader process and the converter, the name mapping) with valid
// files, and libFuzzer's mutations of the program are mutations of structure.
//
// Two modes, chosen by the first byte. In process (most inputs): the reader's child work
// runs in this process (set_readers_in_process), so libFuzzer sees its coverage and the
// sanitizers its faults; the file is exactly as libhdf5 wrote it. Forked (the real
// isolation of `focal convert`): the child is a process under its limits, and up to three
// bytes of the image may be changed first (the malformed files that crash libhdf5 must
// come back as an error, never as a signal in this process).
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model_writer.h"
#include "presets/graph_builder.h"
#include "presets/preset.h"
#include "presets/weights.h"
#include "readers/checkpoint.h"
#include "readers/isolated_reader.h"
#include "tokenizer_exercise.h"  // scratch_dir, write_file
#include "zip_rewriter.h"

namespace {

// The program's bytes, from the front; zeros once they run out.
class Program {
 public:
  Program(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(byte() | byte() << 8); }
  size_t below(size_t n) { return n == 0 ? 0 : byte() % n; }
  std::string raw(size_t max_length) {
    const size_t length = below(max_length + 1);
    std::string text;
    for (size_t i = 0; i < length; ++i) text += static_cast<char>(byte());
    return text;
  }
  bool done() const { return at_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_, at_ = 0;
};

// Path components: Keras 2 and 3 names, then a few that paths resolve specially.
const char* const kNames[] = {
    "model_weights", "optimizer_weights", "layers", "vars", "optimizer", "top_level_model_weights",
    "embedding", "bidirectional", "forward_lstm", "backward_lstm", "lstm_cell_1", "lstm_cell_2",
    "forward_gru", "backward_gru", "gru_cell_1", "gru_cell_2", "forward_layer", "backward_layer",
    "cell", "bahdanau_attention", "attention", "dense", "dense_1", "dense_2",
    "W", "V", "dropout", "input_1", "embeddings:0", "kernel:0", "recurrent_kernel:0", "bias:0",
    "W:0", "b:0", "v:0", "u:0", "0", "1", "2", "3",
    "Adam", "iter:0", "m:0", "lstm", "gru", "_loss_tracker", "embedding_1", "x:0",
    ".", "..", "a b", "\xc3\xa9", "optimizer_weights/", "layers/x/vars"};
constexpr size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

// Text values of attributes.
const char* const kTexts[] = {
    "2.15.0", "3.3.3", "tensorflow", "jax", "",
    R"({"class_name": "Functional", "config": {"layers": []}})",
    R"({"class_name": "Sequential", "config": {"name": "s", "layers": [{"class_name": "Dense", "config": {"units": 2}}]}})",
    R"({"loss": "binary_crossentropy", "optimizer_config": {"class_name": "Adam"}})",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "{\"a\":", "\xff\xfe\x00"};
constexpr size_t kTextCount = sizeof(kTexts) / sizeof(kTexts[0]);

const char* const kAttributeNames[] = {"layer_names", "weight_names", "backend", "keras_version",
                                       "model_config", "training_config", "CLASS", "x"};

struct Id {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Id() = default;
  Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  ~Id() {
    if (id >= 0 && close != nullptr) close(id);
  }
  bool ok() const { return id >= 0; }
};

// A path of 0-7 components; `plain` stays true while every component is a name from
// kNames that libhdf5 stores as given (so H5Lvisit reports the same path).
std::string read_path(Program& p, bool* plain) {
  const size_t count = p.below(8);
  std::string path;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t c = p.byte();
    std::string part;
    if (c < kNameCount) {
      part = kNames[c];
      if (part == "." || part == ".." || part.find('/') != std::string::npos) *plain = false;
    } else if (c >= 0xF0) {
      // Long names, for heap and B-tree splits: 300 to 450 bytes, so that a link still
      // fits the first 512-byte block of a group's dense-link heap. A longer one makes
      // libhdf5 1.10's writer skip heap blocks, where it frees a free-space section twice
      // (H5HF__sect_indirect_add, under H5Gcreate2): a campaign's finding in the writer
      // that builds the file, not in the reader, kept as regress_writer_heap_skip.
      part = std::string(300 + (c & 15) * 10, 'n');
    } else {
      part = p.raw(24);
      *plain = false;
    }
    path += (path.empty() ? "" : "/") + part;
  }
  return path;
}

hid_t half_float(bool big_endian, bool brain) {
  const hid_t t = H5Tcopy(big_endian ? H5T_IEEE_F32BE : H5T_IEEE_F32LE);
  if (brain) {
    H5Tset_fields(t, 15, 7, 8, 0, 7);
    H5Tset_offset(t, 0);
    H5Tset_precision(t, 16);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, 127);
  } else {
    H5Tset_fields(t, 15, 10, 5, 0, 10);
    H5Tset_offset(t, 0);
    H5Tset_precision(t, 16);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, 15);
  }
  return t;
}

enum TypeTraits { kPlainBytes = 1, kFloat32Le = 2 };

// An element type (a new id the caller closes) and whether raw bytes are a valid value
// of it (no pointers or heap ids inside).
hid_t make_type(Program& p, hid_t committed, unsigned* traits) {
  *traits = kPlainBytes;
  switch (p.below(30)) {
    case 0: *traits |= kFloat32Le; return H5Tcopy(H5T_IEEE_F32LE);
    case 1: return H5Tcopy(H5T_IEEE_F32BE);
    case 2: return H5Tcopy(H5T_IEEE_F64LE);
    case 3: return H5Tcopy(H5T_IEEE_F64BE);
    case 4: return half_float(false, false);
    case 5: return half_float(true, false);
    case 6: return half_float(false, true);
    case 7: return H5Tcopy(H5T_STD_I8LE);
    case 8: return H5Tcopy(H5T_STD_U8LE);
    case 9: return H5Tcopy(H5T_STD_I16LE);
    case 10: return H5Tcopy(H5T_STD_I16BE);
    case 11: return H5Tcopy(H5T_STD_I32LE);
    case 12: return H5Tcopy(H5T_STD_I32BE);
    case 13: return H5Tcopy(H5T_STD_I64LE);
    case 14: return H5Tcopy(H5T_STD_I64BE);
    case 15: return H5Tcopy(H5T_STD_U64LE);
    case 16: return H5Tcopy(H5T_STD_U32BE);
    case 17: {  // a 12-bit integer at bit 2 of 16
      const hid_t t = H5Tcopy(H5T_STD_I16LE);
      H5Tset_precision(t, 12);
      H5Tset_offset(t, 2);
      return t;
    }
    case 18: {  // h5py's bool
      const hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
      int8_t v = 0;
      H5Tenum_insert(t, "FALSE", &v);
      v = 1;
      H5Tenum_insert(t, "TRUE", &v);
      return t;
    }
    case 19: {
      const hid_t t = H5Tcopy(H5T_C_S1);
      H5Tset_size(t, 1 + p.below(16));
      return t;
    }
    case 20: {
      *traits = 0;
      const hid_t t = H5Tcopy(H5T_C_S1);
      H5Tset_size(t, H5T_VARIABLE);
      return t;
    }
    case 21: {  // complex64 as h5py writes it
      const hid_t t = H5Tcreate(H5T_COMPOUND, 8);
      H5Tinsert(t, "r", 0, H5T_IEEE_F32LE);
      H5Tinsert(t, "i", 4, H5T_IEEE_F32LE);
      return t;
    }
    case 22: {
      const hsize_t dims[1] = {1 + p.below(4)};
      return H5Tarray_create2(H5T_IEEE_F32LE, 1, dims);
    }
    case 23: return H5Tcopy(H5T_STD_B8LE);
    case 24: {
      const hid_t t = H5Tcreate(H5T_OPAQUE, 1 + p.below(8));
      H5Tset_tag(t, "keras");
      return t;
    }
    case 25: *traits = 0; return H5Tcopy(H5T_STD_REF_OBJ);
    case 26: return H5Tcopy(H5T_NATIVE_LDOUBLE);
    case 27: *traits = 0; return H5Tvlen_create(H5T_NATIVE_INT32);
    case 28: {  // a float of odd layout: 24 bits in 4 bytes
      const hid_t t = H5Tcopy(H5T_IEEE_F32LE);
      H5Tset_fields(t, 23, 16, 7, 0, 16);
      H5Tset_precision(t, 24);
      H5Tset_ebias(t, 63);
      return t;
    }
    default:
      if (committed >= 0) {
        *traits = H5Tdetect_class(committed, H5T_VLEN) > 0 || H5Tdetect_class(committed, H5T_REFERENCE) > 0 ||
                          H5Tis_variable_str(committed) > 0
                      ? 0
                      : kPlainBytes;
        H5Iinc_ref(committed);  // the committed type itself: datasets share its message
        return committed;
      }
      return H5Tcopy(H5T_IEEE_F32LE);
  }
}

// Bytes for `count` values of `size` bytes: a pattern from the program, repeated.
std::vector<uint8_t> pattern_bytes(Program& p, size_t bytes) {
  std::vector<uint8_t> seed(1 + p.below(32));
  for (uint8_t& b : seed) b = p.byte();
  std::vector<uint8_t> out(bytes);
  for (size_t i = 0; i < bytes; ++i) out[i] = seed[i % seed.size()];
  return out;
}

struct Built {
  std::map<std::string, std::vector<uint8_t>> float32_written;  // path -> bytes, for the oracle
  hid_t committed = -1;                                           // the last committed type
};

void make_dataset(Program& p, hid_t file, hid_t lcpl, const std::string& path, bool plain, Built& built) {
  unsigned traits = 0;
  // A call libhdf5 refuses fails harmlessly (an invalid id makes the calls after it fail
  // too); the program is read on regardless, so what follows keeps its meaning.
  const Id type(make_type(p, built.committed, &traits), H5Tclose);
  const size_t element = type.ok() ? H5Tget_size(type.id) : 0;

  // The space: simple of rank 0-4, scalar, null, or rank 1 with a large declared extent.
  const uint8_t s = p.byte();
  const int kind = s % 8;
  const bool unlimited = (s & 8) != 0;
  int rank = kind <= 4 ? kind : kind == 7 ? 1 : 0;
  hsize_t dims[4] = {}, maxdims[4] = {};
  uint64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const uint8_t d = p.byte();
    dims[i] = kind == 7 ? hsize_t(p.u16()) << 6 : d < 0xF0 ? d % 24 : hsize_t(p.u16()) + 1;
    maxdims[i] = dims[i];
    count *= dims[i];
  }
  if (unlimited && rank > 0) maxdims[0] = H5S_UNLIMITED;
  if (kind == 6) count = 0;
  const Id space(kind == 5   ? H5Screate(H5S_SCALAR)
                 : kind == 6 ? H5Screate(H5S_NULL)
                             : H5Screate_simple(rank, dims, maxdims),
                 H5Sclose);
  const bool big = count > 4096;

  // Storage: compact, contiguous, chunked, external or virtual.
  const Id create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  int layout = static_cast<int>(p.below(5));
  if (unlimited && rank > 0 && layout != 4) layout = 2;
  if (rank == 0 && layout == 2) layout = 1;
  bool writable = (traits & kPlainBytes) != 0 && !big;
  bool declared_only = false;  // no chunk may be allocated early
  if (layout == 0) {
    H5Pset_layout(create.id, H5D_COMPACT);
  } else if (layout == 2 || layout == 3) {
    if (layout == 2) {
      hsize_t chunk[4] = {};
      for (int i = 0; i < rank; ++i) {
        const uint8_t c = p.byte();
        chunk[i] = c >= 0xF8   ? hsize_t(1) << (8 + (c & 7) * 3)  // far larger than the data
                   : c >= 0x80 ? 1 + c % 32                       // maybe larger than the dim
                               : (maxdims[i] == H5S_UNLIMITED || dims[i] == 0 ? 1 + c % 8
                                                                             : 1 + c % dims[i]);
      }
      H5Pset_chunk(create.id, rank, chunk);
      // Writing (or allocating early) a chunk makes the writer hold it whole: a huge one is
      // declared only, for the reader to refuse.
      uint64_t chunk_bytes = element > 0 ? element : 1;
      for (int i = 0; i < rank; ++i) {
        chunk_bytes = chunk[i] > (uint64_t(1) << 32) / chunk_bytes ? uint64_t(1) << 32 : chunk_bytes * chunk[i];
      }
      if (chunk_bytes > (uint64_t(1) << 20)) {
        declared_only = true;
        writable = false;
      }
      const uint8_t f = p.byte();
      const unsigned flag = (f & 0x40) ? H5Z_FLAG_OPTIONAL : H5Z_FLAG_MANDATORY;
      if (f & 0x80) H5Pset_fletcher32(create.id);
      if (f & 1) H5Pset_shuffle(create.id);
      if (f & 2) {
        const unsigned level = static_cast<unsigned>(p.below(10));
        H5Pset_filter(create.id, H5Z_FILTER_DEFLATE, flag, 1, &level);
      }
      // N-bit, scale-offset and szip are not among the filters the reader takes, so it
      // refuses them before reading data: declared only, never written nor allocated
      // early (libhdf5's n-bit and scale-offset encoders and libaec's crash on some of the
      // types and shapes the program makes).
      if (f & 4) H5Pset_nbit(create.id);
      if (f & 8) H5Pset_scaleoffset(create.id, p.below(2) ? H5Z_SO_INT : H5Z_SO_FLOAT_DSCALE, p.below(8));
      if ((f & 16) && H5Zfilter_avail(H5Z_FILTER_SZIP) > 0) H5Pset_szip(create.id, H5_SZIP_NN_OPTION_MASK, 8);
      if (f & (4 | 8 | 16)) {
        declared_only = true;
        writable = false;
      }
      if ((f & 32) && !(f & 0x80)) H5Pset_fletcher32(create.id);
    } else {
      // External storage: a file that does not exist (nothing is ever written to it).
      const char* names[] = {"focal-fuzz-missing-dir/external.bin", "/focal-fuzz-missing-dir/w.bin"};
      H5Pset_external(create.id, names[p.below(2)], static_cast<off_t>(p.below(4) * 512),
                      count * element + p.below(64));
      writable = false;
    }
  } else if (layout == 4) {
    // A virtual dataset mapping another file's dataset (or this file's own, ".").
    const char* sources[] = {"focal-fuzz-missing.h5", "."};
    if (kind <= 4 || kind == 7) {
      H5Pset_virtual(create.id, space.id, sources[p.below(2)], "/source", space.id);
    }
    writable = false;
  }

  // Fill value, fill time, allocation time.
  const uint8_t fill = p.byte();
  if ((fill & 1) && (traits & kPlainBytes) && element <= 64) {
    const std::vector<uint8_t> value = pattern_bytes(p, element);
    H5Pset_fill_value(create.id, type.id, value.data());
  }
  static const H5D_fill_time_t kFillTimes[] = {H5D_FILL_TIME_IFSET, H5D_FILL_TIME_IFSET, H5D_FILL_TIME_NEVER,
                                               H5D_FILL_TIME_ALLOC};
  static const H5D_alloc_time_t kAllocTimes[] = {H5D_ALLOC_TIME_DEFAULT, H5D_ALLOC_TIME_EARLY,
                                                 H5D_ALLOC_TIME_LATE, H5D_ALLOC_TIME_INCR};
  H5Pset_fill_time(create.id, layout == 3 ? H5D_FILL_TIME_NEVER : kFillTimes[(fill >> 1) & 3]);
  H5D_alloc_time_t alloc = kAllocTimes[(fill >> 3) & 3];
  if ((big || declared_only) && (alloc == H5D_ALLOC_TIME_EARLY || layout == 0 || layout == 1)) {
    alloc = H5D_ALLOC_TIME_LATE;
  }
  if (layout == 0) alloc = H5D_ALLOC_TIME_EARLY;  // the only one compact storage takes
  H5Pset_alloc_time(create.id, alloc);

  const Id dataset(H5Dcreate2(file, path.empty() ? "d" : path.c_str(), type.id, space.id, lcpl, create.id, H5P_DEFAULT),
                   H5Dclose);
  const uint8_t write = p.byte();
  if (!writable || count == 0 || (write & 3) == 0) return;
  const std::vector<uint8_t> values = pattern_bytes(p, count * element);
  if ((write & 3) == 3 && rank > 0) {
    // Only the first row: the rest stays fill values (chunks left unallocated).
    hsize_t start[4] = {}, block[4] = {};
    for (int i = 0; i < rank; ++i) block[i] = i == 0 ? 1 : dims[i];
    const Id memory(H5Screate_simple(rank, block, nullptr), H5Sclose);
    H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nullptr, block, nullptr);
    H5Dwrite(dataset.id, type.id, memory.id, space.id, H5P_DEFAULT, values.data());
    return;
  }
  if (dataset.ok() && H5Dwrite(dataset.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0 &&
      (traits & kFloat32Le) &&
      plain && !path.empty() && kind != 5 && kind != 6) {
    built.float32_written[path] = values;
  }
}

void make_group(Program& p, hid_t file, hid_t lcpl, const std::string& path) {
  const uint8_t g = p.byte();
  const Id create(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  if (g & 1) H5Pset_link_creation_order(create.id, H5P_CRT_ORDER_TRACKED | ((g & 2) ? H5P_CRT_ORDER_INDEXED : 0));
  if (g & 4) H5Pset_link_phase_change(create.id, 0, 0);  // dense links (fractal heap, v2 B-tree)
  if (g & 8) H5Pset_est_link_info(create.id, 1 + p.below(64), 1 + p.below(64));
  if (g & 16) H5Pset_attr_phase_change(create.id, 0, 0);  // dense attributes
  if (g & 32) H5Pset_local_heap_size_hint(create.id, p.below(4) * 1024);
  if (g & 64) H5Pset_attr_creation_order(create.id, H5P_CRT_ORDER_TRACKED);
  const Id group(H5Gcreate2(file, path.empty() ? "g" : path.c_str(), lcpl, create.id, H5P_DEFAULT), H5Gclose);
}

void make_attribute(Program& p, hid_t file, const std::string& path) {
  const char* name = kAttributeNames[p.below(sizeof(kAttributeNames) / sizeof(kAttributeNames[0]))];
  // On a path that is not there the calls below fail harmlessly; the program is read on
  // regardless, so what follows keeps its meaning.
  const Id object(H5Oopen(file, path.empty() ? "/" : path.c_str(), H5P_DEFAULT), H5Oclose);
  if (object.ok() && H5Aexists(object.id, name) > 0) H5Adelete(object.id, name);
  const auto text = [&]() -> std::string {
    const uint8_t t = p.byte();
    return t < kTextCount ? kTexts[t] : t < kTextCount + kNameCount ? kNames[t - kTextCount] : p.raw(64);
  };
  switch (p.below(6)) {
    case 0: {  // a fixed-length string (h5py writes bytes so)
      const std::string value = text();
      const Id type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type.id, value.empty() ? 1 : value.size());
      const Id space(H5Screate(H5S_SCALAR), H5Sclose);
      const Id a(H5Acreate2(object.id, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (a.ok()) H5Awrite(a.id, type.id, value.empty() ? "" : value.data());
      return;
    }
    case 1: {  // an array of fixed-length strings (layer_names, weight_names)
      const size_t count = p.below(12);
      std::vector<std::string> values;
      size_t longest = 1;
      for (size_t i = 0; i < count; ++i) {
        values.push_back(text());
        longest = std::max(longest, values.back().size());
      }
      std::vector<char> packed(std::max<size_t>(1, count * longest));
      for (size_t i = 0; i < count; ++i) std::memcpy(packed.data() + i * longest, values[i].data(), values[i].size());
      const Id type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type.id, longest);
      const hsize_t dims[1] = {count};
      const Id space(H5Screate_simple(1, dims, nullptr), H5Sclose);
      const Id a(H5Acreate2(object.id, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (a.ok() && count > 0) H5Awrite(a.id, type.id, packed.data());
      return;
    }
    case 2: {  // a variable-length string (Keras 3, h5py str)
      const std::string value = text();
      const char* pointer = value.c_str();
      const Id type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type.id, H5T_VARIABLE);
      H5Tset_cset(type.id, H5T_CSET_UTF8);
      const Id space(H5Screate(H5S_SCALAR), H5Sclose);
      const Id a(H5Acreate2(object.id, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (a.ok()) H5Awrite(a.id, type.id, &pointer);
      return;
    }
    case 3: {  // integers
      const hsize_t dims[1] = {p.below(16)};
      const std::vector<uint8_t> values = pattern_bytes(p, dims[0] * 8 + 8);
      const Id space(H5Screate_simple(1, dims, nullptr), H5Sclose);
      const Id a(H5Acreate2(object.id, name, H5T_STD_I64LE, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (a.ok()) H5Awrite(a.id, H5T_STD_I64LE, values.data());
      return;
    }
    case 4: {  // a large opaque attribute: over 64 KiB needs dense attribute storage
      const hsize_t dims[1] = {size_t(p.u16()) * 2};
      const std::vector<uint8_t> values = pattern_bytes(p, dims[0] + 1);
      const Id space(H5Screate_simple(1, dims, nullptr), H5Sclose);
      const Id a(H5Acreate2(object.id, name, H5T_STD_U8LE, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (a.ok()) H5Awrite(a.id, H5T_STD_U8LE, values.data());
      return;
    }
    default: {  // a float scalar
      const float value = static_cast<float>(p.u16()) / 7.0f;
      const Id space(H5Screate(H5S_SCALAR), H5Sclose);
      const Id a(H5Acreate2(object.id, name, H5T_IEEE_F32BE, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (a.ok()) H5Awrite(a.id, H5T_NATIVE_FLOAT, &value);
      return;
    }
  }
}

// The file the program describes, at `file_path`; false if libhdf5 refused to make it. The
// core driver keeps it in memory and writes it once, whole, when it is closed (an image
// taken from an open file has stale checksums in the newer superblocks).
bool build_file(Program& p, uint8_t options, Built& built, const std::string& file_path) {
  const Id access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_core(access.id, 1 << 16, /*backing_store=*/1);
  static const H5F_libver_t kLow[] = {H5F_LIBVER_EARLIEST, H5F_LIBVER_V18, H5F_LIBVER_V110};
  H5Pset_libver_bounds(access.id, kLow[p.below(3)], H5F_LIBVER_LATEST);
  const Id create(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  if (options & 0x10) H5Pset_userblock(create.id, 512);
  if (options & 0x20) {
    // Small B-tree ranks for node splits, from 2: with rank 1 (two children a node) the
    // version-1 B-trees of libhdf5 1.10's writer grew past the 255 levels a node can
    // encode and the file's close failed, leaving it open with its metadata cache (about
    // 16 MB each; the fixed-seed ctest run passed its 2 GB limit).
    H5Pset_sym_k(create.id, 2 + p.below(3), 1 + p.below(4));
    H5Pset_istore_k(create.id, 2 + p.below(7));
  }
  if (options & 0x40) H5Pset_sizes(create.id, 4, 4);
  if (options & 0x80) {  // shared object header messages (a heap and index of their own)
    H5Pset_shared_mesg_nindexes(create.id, 1);
    H5Pset_shared_mesg_index(create.id, 0, H5O_SHMESG_ALL_FLAG, 8);
  }
  Id file(H5Fcreate(file_path.c_str(), H5F_ACC_TRUNC, create.id, access.id), H5Fclose);
  if (!file.ok()) return false;
  const Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.id, 1);
  if (p.byte() & 1) H5Pset_char_encoding(lcpl.id, H5T_CSET_UTF8);

  const size_t entries = p.below(64);
  for (size_t e = 0; e < entries && !p.done(); ++e) {
    const uint8_t kind = p.byte();
    bool plain = true;
    const std::string path = read_path(p, &plain);
    switch (kind % 8) {
      case 0:
      case 1: make_dataset(p, file.id, lcpl.id, path, plain, built); break;
      case 2: make_group(p, file.id, lcpl.id, path); break;
      case 3: make_attribute(p, file.id, path); break;
      case 4: {
        bool unused = true;
        const std::string target = read_path(p, &unused);
        H5Lcreate_soft(target.empty() ? "/" : target.c_str(), file.id, path.empty() ? "s" : path.c_str(), lcpl.id,
                       H5P_DEFAULT);
        break;
      }
      case 5: {
        const char* files[] = {"focal-fuzz-missing.h5", "/focal-fuzz-missing-dir/x.h5", "."};
        H5Lcreate_external(files[p.below(3)], "/model_weights", file.id, path.empty() ? "e" : path.c_str(), lcpl.id,
                           H5P_DEFAULT);
        break;
      }
      case 6: {  // a second name for an object: a hard link, the dataset visited twice
        bool unused = true;
        const std::string target = read_path(p, &unused);
        H5Lcreate_hard(file.id, target.empty() ? "/" : target.c_str(), file.id, path.empty() ? "h" : path.c_str(),
                       lcpl.id, H5P_DEFAULT);
        break;
      }
      default: {
        unsigned traits = 0;
        const hid_t type = make_type(p, built.committed, &traits);
        if (type < 0) break;
        if (H5Tcommitted(type) <= 0 &&
            H5Tcommit2(file.id, path.empty() ? "t" : path.c_str(), type, lcpl.id, H5P_DEFAULT, H5P_DEFAULT) >= 0) {
          if (built.committed >= 0) H5Tclose(built.committed);
          built.committed = type;  // kept open for the datasets that follow
        } else {
          H5Tclose(type);
        }
        break;
      }
    }
  }
  if (built.committed >= 0) H5Tclose(built.committed);
  built.committed = -1;
  const hid_t id = file.id;
  file.id = -1;
  return H5Fclose(id) >= 0;
}

// FOCAL_FUZZ_VERBOSE=1: what each input read to, to check what the seeds reach.
bool verbose() {
  static const bool on = std::getenv("FOCAL_FUZZ_VERBOSE") != nullptr;
  return on;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_keras_h5: %s\n", what.c_str());
  std::abort();
}

// What a successful read must satisfy.
void check_read(const focal::convert::Checkpoint& checkpoint, bool keras, const Built& built) {
  using focal::convert::element_size;
  for (const auto& tensor : checkpoint.tensors) {
    uint64_t bytes = 0;
    if (!focal::convert::checked_byte_size(tensor.type, tensor.shape, &bytes) || bytes != tensor.byte_size()) {
      fail("tensor '" + tensor.name + "' has bytes that do not match its shape");
    }
    if (tensor.name.rfind("optimizer/", 0) == 0 || (!keras && tensor.name.rfind("optimizer_weights/", 0) == 0)) {
      fail("the optimizer's state was read: '" + tensor.name + "'");
    }
    const auto written = built.float32_written.find(tensor.name);
    if (written != built.float32_written.end() &&
        (tensor.type != focal::convert::ElementType::kF32 || written->second.size() != tensor.byte_size() ||
         std::memcmp(written->second.data(), tensor.data(), tensor.byte_size()) != 0)) {
      fail("float32 dataset '" + tensor.name + "' does not read back as written");
    }
  }
}

// The keras-classifier preset on what was read: name parsing and shape checks.
void build_classifier(focal::convert::Checkpoint checkpoint) {
  std::vector<focal::convert::Checkpoint> checkpoints;
  checkpoints.push_back(std::move(checkpoint));
  focal::convert::WeightSource weights(std::move(checkpoints));
  focal::ModelWriter writer;
  focal::convert::GraphBuilder builder(writer, weights);
  focal::convert::PresetOptions options;
  options.max_seq = 16;
  options.preset = "keras-classifier";
  const focal::convert::Preset* preset = focal::convert::find_preset("keras-classifier");
  if (preset == nullptr) fail("no keras-classifier preset");
  const focal::Status built = preset->build(nlohmann::json::object(), options, builder);
  if (verbose()) std::fprintf(stderr, "keras-classifier: %s\n", built.ok() ? "built" : built.message());
}

}  // namespace

// libhdf5's writer leaks on some of its own error paths (H5D__layout_oh_create when a
// dataset's layout is refused): memory lost while building the file, not reading it.
// Debian's libhdf5 has no frame pointers, so a leak's stack ends in it and cannot be told
// apart by caller: blocks libhdf5 itself allocated are not reported. Nothing is lost to
// the reader's checks: an id it failed to close would keep its memory reachable anyway.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5_serial.so\n"; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // No library teardown at exit: a file libhdf5 failed to close stays in its id table
  // (LLVMFuzzerTestOneInput says how), and closing it again at exit crashed in
  // H5F__close_cb. The process's exit frees everything anyway.
  H5dont_atexit();
  H5open();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // libhdf5 keeps freed blocks on free lists of its own, by default only small ones: the
  // 512 KiB metadata cache of every file opened (twice per input) went back to ASan's
  // allocator, which gives fresh pages each time (page faults were half the run time).
  // Larger lists let the reader reuse the writer's; each input ends by emptying them
  // (LLVMFuzzerTestOneInput), or libFuzzer would take the blocks kept for leaks and run
  // its costly leak check after most inputs. The fuzzer's speed only.
  H5set_free_list_limits(64 << 20, 16 << 20, 64 << 20, 16 << 20, 64 << 20, 16 << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Each input's files have names of their own and are removed after it: a file whose
  // H5Fclose failed stays open in libhdf5, and H5F_ACC_TRUNC on an open file's name fails,
  // so one such input (libhdf5 failing to close a file it wrote itself) once turned every
  // later input of a campaign into a no-op (about 263,500 executions in).
  static size_t input_number = 0;
  const std::string& dir = fuzz_tokenizers::scratch_dir();
  const std::string stem = dir + "/model" + std::to_string(input_number++);
  const std::string h5 = stem + ".h5";
  struct Cleanup {
    const std::string& stem;
    ~Cleanup() {
      H5garbage_collect();  // empties the free lists (LLVMFuzzerInitialize says why)
      std::remove((stem + ".h5").c_str());
      std::remove((stem + ".keras").c_str());
    }
  } cleanup{stem};
  Program p(data, size);
  const uint8_t mode = p.byte();
  const bool keras = (mode & 3) == 3;
  const bool forked = (mode & 0x0c) == 0x0c;
  Built built;
  if (!build_file(p, mode, built, h5)) return 0;
  // What the writer left open is libhdf5's (a failed close); the reader must leave nothing.
  const ssize_t open_before_reading = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  std::vector<uint8_t> image;
  {
    std::FILE* f = std::fopen(h5.c_str(), "rb");
    if (f == nullptr) fail("cannot read back " + h5);
    uint8_t buffer[1 << 16];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof(buffer), f)) > 0) image.insert(image.end(), buffer, buffer + got);
    std::fclose(f);
  }
  if (image.empty()) return 0;
  const size_t patches = forked ? p.below(4) : 0;
  for (size_t i = 0; i < patches; ++i) {
    const size_t at = p.u16() % image.size();
    image[at] ^= static_cast<uint8_t>(p.byte() | 1);
  }
  const bool deflated = (p.byte() & 1) != 0;  // the .keras member
  std::string path = h5;
  if (keras) {
    path = stem + ".keras";
    std::vector<focal::fuzz::ZipMember> members(3);
    members[0].name = "metadata.json";
    const std::string metadata = R"({"keras_version": "3.3.3", "date_saved": "2024-06-01@12:00:00"})";
    members[0].contents.assign(metadata.begin(), metadata.end());
    members[1].name = "config.json";
    const std::string config = R"({"class_name": "Functional", "config": {"layers": []}})";
    members[1].contents.assign(config.begin(), config.end());
    members[2].name = focal::convert::kKerasWeightsMember;
    members[2].method = deflated ? 8 : 0;
    members[2].contents = image;
    for (auto& member : members) member.uncompressed_bytes = member.contents.size();
    const std::vector<uint8_t> zip = focal::fuzz::write_zip(members);
    fuzz_tokenizers::write_file(path, zip.data(), zip.size());
  } else if (patches > 0) {
    fuzz_tokenizers::write_file(path, image.data(), image.size());
  }
  focal::convert::set_readers_in_process(!forked);
  auto checkpoint = focal::convert::read_checkpoint(path);
  focal::convert::set_readers_in_process(false);
  const ssize_t open_after_reading = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open_after_reading != open_before_reading) {
    fail("read_checkpoint left " + std::to_string(open_after_reading - open_before_reading) +
         " HDF5 objects open");
  }
  if (verbose()) {
    std::fprintf(stderr, "%s, %zu bytes, %s: %s\n", keras ? ".keras" : ".h5", image.size(),
                 forked ? "forked" : "in process",
                 checkpoint.ok() ? (std::to_string(checkpoint->tensors.size()) + " tensors").c_str()
                                 : checkpoint.status().message());
  }
  if (!checkpoint.ok()) return 0;
  if (patches == 0) check_read(checkpoint.value(), keras, built);
  build_classifier(std::move(checkpoint.value()));
  return 0;
}
