// One attention scoring problem (additive, Luong dot or general, concat with or without
// tanh) with its buffers,
// for tests/test_scoring.cpp: the sizes, strides and misalignment of a case, and runs
// of the reference and of any kernel set over a misaligned workspace.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dispatch/scoring_dispatch.h"
#include "focal/attention_scoring.h"
#include "support/aligned_buffer.h"
#include "support/random_values.h"

namespace focal {
namespace scoring_testing {

using focal::testing::AlignedBuffer;

enum class Form { kAdditive, kDot, kGeneral, kConcat, kConcatTanh };
constexpr Form kAllForms[] = {Form::kAdditive, Form::kDot, Form::kGeneral, Form::kConcat,
                              Form::kConcatTanh};

inline const char* form_name(Form f) {
  switch (f) {
    case Form::kAdditive: return "additive";
    case Form::kDot: return "dot";
    case Form::kGeneral: return "general";
    case Form::kConcat: return "concat";
    default: return "concat-tanh";
  }
}

inline bool is_concat(Form f) { return f == Form::kConcat || f == Form::kConcatTanh; }
// Forms whose query has its own width query_dim (dot and additive use dim).
inline bool has_query_dim(Form f) { return f == Form::kGeneral || is_concat(f); }

struct Problem {
  Form form = Form::kAdditive;
  size_t src_len = 7;
  size_t dim = 16;        // units (additive) or key_dim (Luong)
  size_t query_dim = 16;  // general and concat; dot and additive use dim
  size_t value_dim = 8;
  int32_t key_length = -1;
  float query_range = 1.0f;  // query_proj / s
  float key_range = 1.0f;    // keys_proj / h
  float v_range = 1.0f;      // additive v
  float scale = 1.0f;        // Luong
  bool equal_keys = false;   // every key row the same: all scores equal
  size_t key_pad = 0;        // extra floats after each key row (a stride)
  size_t value_pad = 0;
  bool values_are_keys = false;  // Luong, value_dim == dim: one buffer
  size_t misalign = 0;           // floats of offset on every input and output
  uint32_t seed = 1;
};

inline std::string describe(const Problem& p) {
  return std::string(form_name(p.form)) + " src" + std::to_string(p.src_len) + " d" +
         std::to_string(p.dim) +
         (has_query_dim(p.form) ? " q" + std::to_string(p.query_dim) : "") + " v" +
         std::to_string(p.value_dim) + " len" + std::to_string(p.key_length) + " ranges " +
         std::to_string(p.query_range) + "/" + std::to_string(p.key_range) + "/" +
         std::to_string(p.v_range) + (p.equal_keys ? " equal" : "") +
         (p.key_pad || p.value_pad
              ? " pad" + std::to_string(p.key_pad) + "/" + std::to_string(p.value_pad)
              : "") +
         (p.values_are_keys ? " shared" : "") + (p.misalign ? " misaligned" : "");
}

// Owns the buffers of one problem and fills the params structs for it.
struct Instance {
  Problem pr;
  std::vector<float> query, keys, v, w, bias, values, context, weights;

  explicit Instance(const Problem& p) : pr(p) {
    const size_t m = p.misalign;
    const size_t qdim = has_query_dim(p.form) ? p.query_dim : p.dim;
    query = testing::random_values(qdim + m, p.seed, -p.query_range, p.query_range);
    keys =
        testing::random_values(p.src_len * key_stride() + m, p.seed + 1, -p.key_range, p.key_range);
    if (p.equal_keys) {
      for (size_t j = 1; j < p.src_len; ++j)
        std::copy(keys.begin() + m, keys.begin() + m + p.dim, keys.begin() + m + j * key_stride());
    }
    v = testing::random_values(p.dim + m, p.seed + 2, -p.v_range, p.v_range);
    // General: W [query_dim][dim]; concat: w [query_dim + dim].
    w = testing::random_values(std::max(p.query_dim * p.dim, p.query_dim + p.dim) + m, p.seed + 3,
                               -1.0f, 1.0f);
    bias = testing::random_values(1 + m, p.seed + 5, -1.0f, 1.0f);
    values = testing::random_values(p.src_len * value_stride() + m, p.seed + 4, -1.0f, 1.0f);
    context.assign(p.value_dim + m, NAN);
    weights.assign(p.src_len + m, NAN);
  }

  size_t key_stride() const { return pr.dim + pr.key_pad; }
  size_t value_stride() const {
    return pr.values_are_keys ? key_stride() : pr.value_dim + pr.value_pad;
  }
  const float* value_data() const {
    return (pr.values_are_keys ? keys.data() : values.data()) + pr.misalign;
  }
  float value_at(size_t j, size_t d) const { return value_data()[j * value_stride() + d]; }
  float key_at(size_t j, size_t d) const { return keys[pr.misalign + j * key_stride() + d]; }
  const float* q() const { return query.data() + pr.misalign; }

  void clear() {
    std::fill(context.begin(), context.end(), NAN);
    std::fill(weights.begin(), weights.end(), NAN);
  }

  AdditiveAttentionParams additive(bool with_weights = true) {
    AdditiveAttentionParams a;
    a.src_len = pr.src_len;
    a.units = pr.dim;
    a.value_dim = pr.value_dim;
    a.key_length = pr.key_length;
    a.query_proj = q();
    a.keys_proj = keys.data() + pr.misalign;
    a.keys_proj_stride = pr.key_pad ? key_stride() : 0;
    a.v = v.data() + pr.misalign;
    a.values = value_data();
    a.values_stride = pr.value_pad ? value_stride() : 0;
    a.context = context.data() + pr.misalign;
    a.weights = with_weights ? weights.data() + pr.misalign : nullptr;
    return a;
  }

  LuongAttentionParams luong(bool with_weights = true) {
    LuongAttentionParams a;
    a.score = pr.form == Form::kGeneral ? LuongScore::kGeneral
              : is_concat(pr.form)      ? LuongScore::kConcat
                                        : LuongScore::kDot;
    a.src_len = pr.src_len;
    a.query_dim = has_query_dim(pr.form) ? pr.query_dim : pr.dim;
    a.key_dim = pr.dim;
    a.value_dim = pr.value_dim;
    a.key_length = pr.key_length;
    a.scale = pr.scale;
    a.query = q();
    a.w = has_query_dim(pr.form) ? w.data() + pr.misalign : nullptr;
    a.bias = is_concat(pr.form) ? bias.data() + pr.misalign : nullptr;
    a.tanh = pr.form == Form::kConcatTanh;
    a.keys = keys.data() + pr.misalign;
    a.keys_stride = pr.key_pad ? key_stride() : 0;
    a.values = value_data();
    a.values_stride = pr.value_pad || pr.values_are_keys ? value_stride() : 0;
    a.context = context.data() + pr.misalign;
    a.weights = with_weights ? weights.data() + pr.misalign : nullptr;
    return a;
  }

  size_t workspace_bytes() {
    return pr.form == Form::kAdditive ? additive_attention_workspace_bytes(additive())
                                      : luong_attention_workspace_bytes(luong());
  }

  Status run_reference() {
    clear();
    return pr.form == Form::kAdditive ? additive_attention_reference(additive())
                                      : luong_attention_reference(luong());
  }

  Status run(const kernels::KernelSet& set, bool with_weights = true) {
    clear();
    // Offset by 4 bytes: the entry points must align the workspace themselves.
    AlignedBuffer workspace(workspace_bytes(), 4);
    if (pr.form == Form::kAdditive) {
      return additive_attention_with_kernels(additive(with_weights), set, workspace.data(),
                                             workspace.size());
    }
    return luong_attention_with_kernels(luong(with_weights), set, workspace.data(),
                                        workspace.size());
  }
};

// The problem in double, and the error bound of the header comment.

}  // namespace scoring_testing
}  // namespace focal
