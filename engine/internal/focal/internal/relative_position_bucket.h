// T5's relative position buckets (Raffel et al. 2020; Hugging Face transformers'
// modeling_t5.py, T5Attention._relative_position_bucket, itself from Mesh TensorFlow),
// shared by the engine's RelativePositionBias op and the converter's reference evaluator
// so that both pick the same bucket for every distance: the bucket is an index, and one
// bucket off changes the bias completely.
//
// distance = key position - query position. Bidirectional (an encoder): half the buckets
// for keys after the query (distance > 0), half for the rest, by |distance|;
// unidirectional (a causal decoder): every bucket for keys at or before the query, by
// -distance (keys after it fall into bucket 0). Of the n buckets of a side, the first
// n/2 hold the distances 0 .. n/2 - 1 exactly, the rest are logarithmic up to
// max_distance, and every larger distance shares the last one.
#pragma once

#include <cmath>
#include <cstdint>

namespace focal {

// The options the op and the reference accept: enough buckets that each side has an
// exact range (max_exact >= 1) and a max_distance beyond it (the logarithm's range > 0).
inline bool relative_position_buckets_valid(int32_t num_buckets, int32_t max_distance, bool bidirectional) {
  const int32_t side = bidirectional ? num_buckets / 2 : num_buckets;
  return num_buckets >= 2 && num_buckets <= 65536 && side >= 2 && max_distance > side / 2;
}

// The bucket of `distance` in [0, num_buckets). As PyTorch computes it, in f32:
// max_exact + int(log(float(n) / max_exact) / float(log(max_distance / max_exact)) *
// float(side - max_exact)), truncated, then capped at side - 1 (the log's argument and
// both divisions are f32 there; its math.log is a double rounded to f32).
inline int32_t relative_position_bucket(int64_t distance, int32_t num_buckets, int32_t max_distance,
                                        bool bidirectional) {
  int32_t bucket = 0;
  int32_t side = num_buckets;
  int64_t n = 0;
  if (bidirectional) {
    side = num_buckets / 2;
    if (distance > 0) bucket = side;
    n = distance < 0 ? -distance : distance;
  } else {
    n = distance < 0 ? -distance : 0;
  }
  const int32_t max_exact = side / 2;
  if (n < max_exact) return bucket + static_cast<int32_t>(n);
  const float log_range = static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact));
  const float scaled = std::log(static_cast<float>(n) / static_cast<float>(max_exact)) / log_range *
                       static_cast<float>(side - max_exact);
  const int64_t large = max_exact + static_cast<int64_t>(scaled);  // scaled >= 0: truncation is floor
  return bucket + static_cast<int32_t>(large < side - 1 ? large : side - 1);
}

}  // namespace focal
