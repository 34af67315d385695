// Which of the namings a seq2seq checkpoint uses, found from its encoder's recurrent
// weights (the anchor), under any prefix:
//   ours      src_embedding, encoder (nn.LSTM/GRU), bridge_h, bridge_c, tgt_embedding,
//             decoder, attention.{query,key,energy} or attention.W, combine, output
//   modules   an Encoder and a Decoder module as tutorials write them, saved as a wrapper's
//             state_dict or as {"encoder": ..., "decoder": ...} (nested dicts are joined
//             with '.'): {encoder,enc,en}.{embedding, lstm|gru|rnn, fc (the bridge)},
//             {decoder,dec,de}.{embedding, lstm|gru|rnn, attention|attn (or attn.attn
//             with attn.v: the PyTorch chatbot tutorial's Attn; attention.{Wa,Ua,Va}: the
//             PyTorch translation tutorial's BahdanauAttention), concat|combine,
//             fc_out|out|fc|output}; a shared top-level `embedding` serves both sides.
#include <array>

#include "presets/rnn_seq2seq.h"

namespace focal {
namespace convert {
namespace {

constexpr std::array<const char*, 3> kEncoders = {"encoder", "enc", "en"};
constexpr std::array<const char*, 3> kDecoders = {"decoder", "dec", "de"};
constexpr std::array<const char*, 3> kCells = {"lstm", "gru", "rnn"};

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The prefix under which `anchor` is a whole name component ("" or ending in '.'), if any.
bool prefix_of(const std::vector<std::string>& names, const std::string& anchor, std::string* prefix) {
  for (const std::string& name : names) {
    if (!ends_with(name, anchor)) continue;
    const std::string before = name.substr(0, name.size() - anchor.size());
    if (before.empty() || before.back() == '.') {
      *prefix = before;
      return true;
    }
  }
  return false;
}

// The first of `modules` with a `.weight` in the checkpoint, or "".
std::string first_present(const WeightSource& w, std::initializer_list<std::string> modules) {
  for (const std::string& m : modules) {
    if (w.has(m + ".weight")) return m;
  }
  return "";
}

// The decoder's recurrent module beside encoder module `enc`, or "".
std::string decoder_rnn(const WeightSource& w) {
  for (const char* dec : kDecoders) {
    for (const char* cell : kCells) {
      const std::string module = std::string(dec) + "." + cell;
      if (w.has(module + ".weight_hh_l0")) return module;
    }
  }
  return "";
}

Seq2SeqNames module_names(const WeightSource& w, const std::string& enc_rnn, const std::string& dec_rnn) {
  const std::string enc = enc_rnn.substr(0, enc_rnn.find('.'));
  const std::string dec = dec_rnn.substr(0, dec_rnn.find('.'));
  Seq2SeqNames n;
  n.ours = false;
  n.encoder = enc_rnn;
  n.decoder = dec_rnn;
  n.src_embedding = first_present(w, {enc + ".embedding", "embedding"});
  n.tgt_embedding = first_present(w, {dec + ".embedding", "embedding"});
  n.bridge_h = first_present(w, {enc + ".fc", enc + ".bridge"});
  if (w.has(dec + ".attention.Wa.weight")) {  // PyTorch's translation tutorial's BahdanauAttention
    n.attention = dec + ".attention";
    n.attention_v = dec + ".attention.Va.weight";
    n.attention_wa_ua = true;
  } else if (w.has(dec + ".attn.attn.weight")) {  // the chatbot tutorial's Attn module
    n.attention = dec + ".attn.attn";
    if (w.has(dec + ".attn.v")) n.attention_v = dec + ".attn.v";
  } else {
    n.attention = first_present(w, {dec + ".attention", dec + ".attn"});
    for (const std::string& v : {dec + ".attention.v", dec + ".attn.v", dec + ".v"}) {
      if (n.attention_v.empty() && w.has(v)) n.attention_v = v;
    }
  }
  n.combine = first_present(w, {dec + ".concat", dec + ".combine"});
  n.output = first_present(w, {dec + ".fc_out", dec + ".out", dec + ".fc", dec + ".output"});
  return n;
}

Seq2SeqNames our_names(const WeightSource& w) {
  Seq2SeqNames n;
  n.src_embedding = "src_embedding";
  n.tgt_embedding = "tgt_embedding";
  n.encoder = "encoder";
  n.decoder = "decoder";
  n.bridge_h = "bridge_h";
  n.bridge_c = "bridge_c";
  n.combine = w.has("combine.weight") ? "combine" : "";
  n.output = "output";
  return n;
}

}  // namespace

Result<Seq2SeqNames> find_seq2seq_names(WeightSource& weights) {
  const std::vector<std::string> names = weights.names();
  std::string prefix;
  for (const char* enc : kEncoders) {
    for (const char* cell : kCells) {
      const std::string module = std::string(enc) + "." + cell;
      if (!prefix_of(names, module + ".weight_hh_l0", &prefix)) continue;
      weights.set_prefix(prefix);
      const std::string dec = decoder_rnn(weights);
      if (dec.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "found the encoder '%s%s' but no decoder recurrent layer "
                             "('%sdecoder.lstm.weight_hh_l0' or .gru / .rnn, or dec., de.)",
                             prefix.c_str(), module.c_str(), prefix.c_str());
      }
      return module_names(weights, module, dec);
    }
  }
  if (prefix_of(names, "encoder.weight_hh_l0", &prefix) || names.empty()) {
    weights.set_prefix(prefix);
    return our_names(weights);
  }
  // Neither naming: the missing-tensor error of the tutorial naming, with the nearest names.
  Result<Matrix> probe = weights.get_any("encoder.lstm.weight_hh_l0");
  return Status::error(StatusCode::kInvalidArgument, "no seq2seq encoder: %s",
                       probe.ok() ? "(none)" : probe.status().message());
}

}  // namespace convert
}  // namespace focal
