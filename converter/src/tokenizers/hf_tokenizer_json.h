// Hugging Face's tokenizer.json (the tokenizers library's format) as a tokenizer, for the
// pipelines the models of the hub use:
//   BPE, byte-level (GPT-2, RoBERTa: ByteLevel pre-tokenizer with GPT-2's pattern)
//   BPE, SentencePiece-style (Llama-2, Phi-3, Gemma: Metaspace, or Prepend + Replace
//        normalizers; byte_fallback <0xXX> pieces)
//   WordPiece (BERT: BertNormalizer, BertPreTokenizer)
//   Unigram (SentencePiece-converted: Metaspace, optional Strip + Replace(" {2,}"))
// with added tokens (lstrip/rstrip; special or not) and the post-processors
// TemplateProcessing, BertProcessing, RobertaProcessing and ByteLevel. Anything else
// (another normalizer, pre-tokenizer, model option or flag) is refused with an error
// naming the component, never approximated.
#pragma once

#include <string>

#include "focal/status.h"
#include "writer/tokenizer_table.h"

namespace focal {
namespace convert {

Result<TokenizerSpec> read_hf_tokenizer_json(const std::string& path);

}  // namespace convert
}  // namespace focal
