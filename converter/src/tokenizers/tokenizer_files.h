// Tokenizers from their usual files, for `focal convert --tokenizer SPEC`:
//   bpe:VOCAB.json:MERGES.txt   GPT-2's byte-level BPE (vocab.json {token: id},
//                               merges.txt "#version" line then "a b" per merge)
//   wordpiece:VOCAB.txt[:lowercase]   BERT's WordPiece (vocab.txt, a token per line;
//                               lowercase: uncased models, accents stripped too), as
//                               transformers' BertTokenizer: [UNK] [SEP] [PAD] [CLS]
//                               [MASK] typed in the text are their ids, [CLS] A [SEP]
//                               around the text for the model
//   unigram:SPM.vocab           SentencePiece's unigram model ("piece<TAB>score" lines)
//   unigram:SPM.vocab:VOCAB.json   the same, its pieces numbered by a joint vocab.json
//                               ({piece: id}, Marian's: tokenizers/vocab_mapping.h)
//   chars:TOKENS.json[:KEY[:lowercase]]   a character-level vocabulary: a JSON list of
//                               tokens in id order (or the list under KEY of a JSON
//                               object); "lowercase" lowercases ASCII letters first
//   [hf:]PATH/tokenizer.json    Hugging Face's tokenizers format (hf_tokenizer_json.h)
//   [sentencepiece:]SPM.model   a SentencePiece model file (sentencepiece_model.h)
// Special tokens are recognized by name: <|endoftext|> (GPT-2's bos and eos), [UNK],
// [PAD], [CLS], [SEP] (WordPiece), and <pad>, <bos>, <eos>, <unk> (or <s>, </s>).
#pragma once

#include <string>

#include "focal/status.h"
#include "model_writer.h"

namespace focal {
namespace convert {

Result<TokenizerSpec> read_tokenizer(const std::string& spec);
// `target`: the tokenizer decodes a seq2seq model's output (--target-tokenizer), which
// decides what a joint vocab.json's other pieces become (OtherPieces).
Result<TokenizerSpec> read_tokenizer(const std::string& spec, bool target);

// Special ids from the tokens' names (above); unk is the first unknown-token name found.
void find_special_tokens(TokenizerSpec* spec);

}  // namespace convert
}  // namespace focal
