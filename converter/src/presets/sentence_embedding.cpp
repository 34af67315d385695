#include "presets/sentence_embedding.h"

namespace focal {
namespace convert {

void add_sentence_embedding(GraphBuilder& b, const PresetOptions& options, int h, const EncoderInputs& in) {
  if (options.sentence == nullptr) return;
  if (options.sentence_taken != nullptr) *options.sentence_taken = true;
  // sentence-transformers' Pooling masks with the attention mask (mean: the sum over
  // valid tokens over their count; cls: position 0; lasttoken: the last valid one).
  const int embedding = b.output("sentence_embedding", {in.B, in.H});
  if (!options.sentence->normalize) {
    b.pool("sentence.pooling", h, in.mask, options.sentence->mode, embedding);
    return;
  }
  // Normalize: torch.nn.functional.normalize(p=2, dim=1), eps 1e-12.
  const int pooled = b.pool("sentence.pooling", h, in.mask, options.sentence->mode);
  b.elementwise("sentence.normalize", fb::L2NormalizeOptionsT(), pooled, embedding);  // epsilon 1e-12
}

}  // namespace convert
}  // namespace focal
