// The verifier's checks, one file per part of a model: tensors (verify_tensors.cpp),
// the graph (verify_graph.cpp), placement in the file and the arena (verify_overlaps.cpp),
// and the contents the engine searches or replays (verify_contents.cpp);
// model_verifier.cpp runs them in order.
// Each returns kInvalidModel naming what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "focal/internal/graph.h"
#include "focal/limits.h"
#include "focal/status.h"
#include "focal_generated.h"

namespace focal {
namespace verify {

struct FileLayout {
  size_t size;           // bytes in the whole file
  uint64_t data_offset;  // start of its data segment
  const uint8_t* bytes;  // the whole file, for checks of constants' contents
};

// Scratch the verifier needs for one pass over the graph; freed on return.
struct GraphScratch {
  Lifetime* lifetimes = nullptr;
  uint8_t* defined = nullptr;
  ~GraphScratch() {
    std::free(lifetimes);
    std::free(defined);
  }
};

inline const char* name_of(const fb::Tensor& t) { return t.name()->c_str(); }
inline uint32_t rank_of(const fb::Tensor& t) { return t.shape()->size(); }

// FlatBuffers' Verifier aligns a vector's length to 4 bytes but not 8-byte elements: a
// hostile file can place a [long] vector at an address that is 4 mod 8, and reading it
// is undefined behaviour (and an alignment fault for 64-bit loads on some Cortex-M
// cores). Every [long] vector the engine reads goes through this check first.
inline bool aligned_longs(const flatbuffers::Vector<int64_t>* v) {
  return reinterpret_cast<uintptr_t>(v->data()) % alignof(int64_t) == 0;
}

// A kInvalidModel status with a printf-style message.
Status invalid(const char* format, ...) __attribute__((format(printf, 1, 2)));

// A buffer must be 64-byte aligned, exactly `expected` bytes long and inside the file.
Status check_buffer(const FileLayout& file, const fb::BufferRef* ref, uint64_t expected,
                    const char* what, const char* name);

// verify_tensors.cpp
Status check_symbols(const fb::Model& model);
Status check_plan_header(const fb::Model& model);
Status check_tensors(const fb::Model& model, const FileLayout& file);
Status check_arena_limit(const fb::Model& model);
Status check_io_list(const fb::Model& model, const flatbuffers::Vector<int32_t>& list,
                     fb::TensorRole role, uint32_t max_count);

// verify_graph.cpp
Status check_ops(const fb::Model& model, GraphScratch& scratch);
Status check_stages(const fb::Model& model, uint8_t* producer_stage);

// verify_overlaps.cpp
Status check_constants_disjoint(const fb::Model& model);
Status check_plan_overlaps(const fb::Model& model, GraphScratch& scratch);

// verify_contents.cpp
Status check_self_tests(const fb::Model& model, const FileLayout& file);
Status check_tokenizer(const fb::Tokenizer* t, const char* which);

}  // namespace verify
}  // namespace focal
