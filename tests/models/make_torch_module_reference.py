#!/usr/bin/python3
"""Reference cases for PyTorch's transformer modules saved as people save them: the
module's own state_dict (torch.save(module.state_dict())), at the top or under a
wrapper's prefix, converted from the weights plus only what the tensors cannot tell.

Usage: make_torch_module_reference.py OUT_DIR

Writes OUT_DIR/<case>/ (family "torch-module"):
  weights.pt       torch.save of the state_dict, under the case's prefix ("", "module."
                   from nn.DataParallel, "_orig_mod." as torch.compile's module saves it,
                   a wrapper attribute such as "transformer.").
  config.json      only the hyperparameters no tensor shows, in PyTorch's constructor
                   names: nhead (num_heads for nn.MultiheadAttention), and norm_first,
                   activation, layer_norm_eps where they are not PyTorch's defaults.
  spec.json        (unless case.json's "spec" is null) the same model as a declarative spec (converter/README.md), on the
                   same checkpoint; for nn.Transformer one stage (src, src_mask, tgt ->
                   output) with the decoder's cross-attention on the encoder's memory.
  inputs/, expected/  float32 inputs; the module's own forward in float64. The presets
                   take PyTorch's names and sense (src_key_padding_mask,
                   memory_key_padding_mask, key_padding_mask: 1 = pad); the specs a mask
                   of 1 = token (src_mask, memory_mask, key_mask). The *_nomask cases call
                   the module without a mask, and give the preset none.
  case.json        {"family", "preset", "weights", "config", "spec", "inputs" (the
                    preset's), "spec_inputs", "outputs",
                    "checks": "single" | "encoder_decoder", "valid_mask": the input whose
                    zeros mark padded positions of the output (not compared), or null}.
and OUT_DIR/torch_module_errors/ (family "torch-module-errors") with checkpoints that
must be refused: layer_mismatch.pt (layer 1 of an encoder has another d_model) and
two_encoders.pt (two nn.TransformerEncoder under different prefixes).
"""

import copy
import json
import os
import sys
import warnings

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (randomize, ragged_mask, writers)

SEED = 16016


# ---------------------------------------------------------------------------------------------
# Modules as their users build them (dropout 0, batch_first as most code today)

def encoder(d, heads, ff, layers, activation="relu", norm_first=False, eps=1e-5, final_norm=False):
    layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation=activation, layer_norm_eps=eps,
                                       batch_first=True, norm_first=norm_first)
    norm = nn.LayerNorm(d, eps=eps) if final_norm else None
    return nn.TransformerEncoder(layer, layers, norm=norm, enable_nested_tensor=False)


def decoder(d, heads, ff, layers, activation="relu", norm_first=False, eps=1e-5, final_norm=False):
    layer = nn.TransformerDecoderLayer(d, heads, ff, dropout=0.0, activation=activation, layer_norm_eps=eps,
                                       batch_first=True, norm_first=norm_first)
    return nn.TransformerDecoder(layer, layers, norm=nn.LayerNorm(d, eps=eps) if final_norm else None)


def transformer(d, heads, ff, enc_layers, dec_layers, activation="relu", norm_first=False, eps=1e-5):
    return nn.Transformer(d, heads, enc_layers, dec_layers, ff, dropout=0.0, activation=activation,
                          layer_norm_eps=eps, batch_first=True, norm_first=norm_first)


def prefixed(state, prefix):
    return {prefix + k: v.detach().clone() for k, v in state.items()}


def float64(module):
    """A float64 copy in eval mode. Forward passes below run with gradients enabled, which
    keeps PyTorch off its inference fast path (nested tensors): the plain math."""
    return copy.deepcopy(module).double().eval()


# ---------------------------------------------------------------------------------------------
# Specs, written from converter/README.md's spec section

def attention_layer(name, x, p, heads, mask=None, memory=None, causal=False, bias=True):
    layer = {"op": "attention", "name": name, "input": x, "heads": heads,
             "qkv": {"weight": p + "in_proj_weight", "order": "qkv"},
             "out": {"weight": p + "out_proj.weight"}, "output": name}
    if bias:
        layer["qkv"]["bias"] = p + "in_proj_bias"
        layer["out"]["bias"] = p + "out_proj.bias"
    if mask:
        layer["mask"] = mask
    if memory:
        layer["memory"] = memory
    if causal:
        layer["causal"] = True
    return layer


def norm_layer(name, x, p, eps, output=None):
    return {"op": "layernorm", "name": name, "input": x, "weight": p + "weight", "bias": p + "bias",
            "epsilon": eps, "output": output or name}


def feed_forward(name, x, p, activation):
    return [{"op": "dense", "name": name + ".linear1", "input": x, "weight": p + "linear1.weight",
             "bias": p + "linear1.bias", "activation": activation},
            {"op": "dense", "name": name + ".linear2", "input": name + ".linear1", "weight": p + "linear2.weight",
             "bias": p + "linear2.bias"}]


def residual_block(name, x, norm_p, eps, norm_first, block, output):
    """PyTorch's two residual forms: x + f(norm(x)) (norm_first) or norm(x + f(x))."""
    if norm_first:
        layers = [norm_layer(name + ".norm", x, norm_p, eps)]
        inner = block(name + ".norm")
        return layers + inner + [{"op": "add", "name": output, "inputs": [x, inner[-1]["name"]]}]
    inner = block(x)
    return inner + [{"op": "add", "name": name + ".residual", "inputs": [x, inner[-1]["name"]]},
                    norm_layer(name + ".norm", name + ".residual", norm_p, eps, output)]


def encoder_layers(stack, x_fmt, c, mask, single=False):
    """One nn.TransformerEncoderLayer from x{i} to x{i+1}, inside a repeat block (the
    layer's tensors under stack + "layers.{i}.", or under stack for one saved alone)."""
    p = stack if single else stack + "layers.{i}."
    x, h, y = x_fmt.format(i="{i}"), x_fmt.format(i="{i}") + ".h", x_fmt.format(i="{i+1}")
    eps, first = c["layer_norm_eps"], c["norm_first"]
    attn = residual_block(x + ".sa", x, p + "norm1.", eps, first,
                          lambda i: [attention_layer(x + ".self_attn", i, p + "self_attn.", c["nhead"], mask=mask)], h)
    ff = residual_block(x + ".ff", h, p + "norm2.", eps, first,
                        lambda i: feed_forward(x + ".ff", i, p, c["activation"]), y)
    return attn + ff


def decoder_layers(stack, x_fmt, c, memory, memory_mask, single=False):
    p = stack if single else stack + "layers.{i}."
    x, y = x_fmt.format(i="{i}"), x_fmt.format(i="{i+1}")
    eps, first = c["layer_norm_eps"], c["norm_first"]
    sa = residual_block(x + ".sa", x, p + "norm1.", eps, first,
                        lambda i: [attention_layer(x + ".self_attn", i, p + "self_attn.", c["nhead"], causal=True)],
                        x + ".h1")
    ca = residual_block(x + ".ca", x + ".h1", p + "norm2.", eps, first,
                        lambda i: [attention_layer(x + ".cross_attn", i, p + "multihead_attn.", c["nhead"],
                                                   mask=memory_mask, memory=memory)], x + ".h2")
    ff = residual_block(x + ".ff", x + ".h2", p + "norm3.", eps, first,
                        lambda i: feed_forward(x + ".ff", i, p, c["activation"]), y)
    return sa + ca + ff


def stack_end(x, stack, final_norm, eps, output):
    if final_norm:
        return [norm_layer(stack + "norm", x, stack + "norm.", eps, output)]
    return [{"op": "copy", "name": output, "input": x}]


def encoder_spec(prefix, c, final_norm, single=False):
    d, n = c["d_model"], c["num_layers"]
    layers = [{"op": "copy", "name": "x0", "input": "src"},
              {"repeat": n, "layers": encoder_layers(prefix, "x{i}", c, "src_mask", single)}]
    layers += stack_end(f"x{n}", prefix, final_norm, c["layer_norm_eps"], "output")
    return {"name": "bare-transformer-encoder", "symbols": {"seq": 16},
            "inputs": [{"name": "src", "dtype": "f32", "shape": ["batch", "seq", d]},
                       {"name": "src_mask", "dtype": "i32", "shape": ["batch", "seq"]}],
            "layers": layers, "outputs": ["output"]}


def classifier_spec(wrapper, c):
    """torch-encoder's classifier: embedding + learned positions, the encoder, masked mean
    pooling, a linear head."""
    n = c["num_layers"]
    layers = [{"op": "embedding", "name": "embedding", "input": "input_ids", "table": wrapper + "embedding.weight",
               "positions": {"learned": wrapper + "pos_embedding.weight"}, "output": "x0"},
              {"repeat": n, "layers": encoder_layers(wrapper + "encoder.", "x{i}", c, "attention_mask")},
              {"op": "copy", "name": "last_hidden_state", "input": f"x{n}"},
              {"op": "pool", "name": "pool", "mode": "mean", "input": "last_hidden_state", "mask": "attention_mask"},
              {"op": "dense", "name": "logits", "input": "pool", "weight": wrapper + "classifier.weight",
               "bias": wrapper + "classifier.bias"}]
    return {"name": "encoder-classifier", "symbols": {"seq": 16},
            "inputs": [{"name": "input_ids", "dtype": "i32", "shape": ["batch", "seq"]},
                       {"name": "attention_mask", "dtype": "i32", "shape": ["batch", "seq"]}],
            "layers": layers, "outputs": ["last_hidden_state", "logits"]}


def decoder_spec(prefix, c, final_norm, single=False):
    d, n = c["d_model"], c["num_layers"]
    layers = [{"op": "copy", "name": "y0", "input": "tgt"},
              {"repeat": n, "layers": decoder_layers(prefix, "y{i}", c, "memory", "memory_mask", single)}]
    layers += stack_end(f"y{n}", prefix, final_norm, c["layer_norm_eps"], "output")
    return {"name": "bare-transformer-decoder", "symbols": {"seq": 16, "src_seq": 16},
            "inputs": [{"name": "tgt", "dtype": "f32", "shape": ["batch", "seq", d]},
                       {"name": "memory", "dtype": "f32", "shape": ["batch", "src_seq", d]},
                       {"name": "memory_mask", "dtype": "i32", "shape": ["batch", "src_seq"]}],
            "layers": layers, "outputs": ["output"]}


def transformer_spec(prefix, c):
    d, ne, nd, eps = c["d_model"], c["num_encoder_layers"], c["num_decoder_layers"], c["layer_norm_eps"]
    layers = [{"op": "copy", "name": "x0", "input": "src"},
              {"repeat": ne, "layers": encoder_layers(prefix + "encoder.", "x{i}", c, "src_mask")},
              norm_layer("encoder.norm", f"x{ne}", prefix + "encoder.norm.", eps, "memory"),
              {"op": "copy", "name": "y0", "input": "tgt"},
              {"repeat": nd, "layers": decoder_layers(prefix + "decoder.", "y{i}", c, "memory", "src_mask")},
              norm_layer("decoder.norm", f"y{nd}", prefix + "decoder.norm.", eps, "output")]
    return {"name": "transformer-one-stage", "symbols": {"seq": 16, "src_seq": 16},
            "inputs": [{"name": "src", "dtype": "f32", "shape": ["batch", "src_seq", d]},
                       {"name": "src_mask", "dtype": "i32", "shape": ["batch", "src_seq"]},
                       {"name": "tgt", "dtype": "f32", "shape": ["batch", "seq", d]}],
            "layers": layers, "outputs": ["output"]}


def mha_spec(prefix, e, heads, bias):
    return {"name": "bare-multihead-attention", "symbols": {"seq": 16, "q_seq": 16},
            "inputs": [{"name": "query", "dtype": "f32", "shape": ["batch", "q_seq", e]},
                       {"name": "key_value", "dtype": "f32", "shape": ["batch", "seq", e]},
                       {"name": "key_mask", "dtype": "i32", "shape": ["batch", "seq"]}],
            "layers": [attention_layer("output", "query", prefix, heads, mask="key_mask", memory="key_value",
                                       bias=bias)],
            "outputs": ["output"]}


# ---------------------------------------------------------------------------------------------
# Cases: (module, state_dict as saved, inputs, expected, spec, extra case.json keys)

def config_of(nhead, activation="relu", norm_first=False, eps=1e-5):
    """What a user passes: nhead, plus what differs from PyTorch's defaults."""
    config = {"nhead": nhead}
    if activation != "relu":
        config["activation"] = activation
    if norm_first:
        config["norm_first"] = True
    if eps != 1e-5:
        config["layer_norm_eps"] = eps
    return config


def full(c):
    return {"activation": "relu", "norm_first": False, "layer_norm_eps": 1e-5, **c}


def without_biases(module):
    """PyTorch >= 2.1's bias=False layers, on torch 1.13: every bias zero in the forward
    and absent from the saved state_dict, as those versions save it."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias"):
                p.zero_()
    return {k: v for k, v in module.state_dict().items() if not k.endswith("bias")}


def padding(mask):
    """PyTorch's key padding mask (True = pad) of a 1 = token mask, as the int32 0/1 the preset takes."""
    return (mask == 0).to(torch.int32)


def encoder_case(d, heads, ff, layers, lengths, seq, prefix="", wrap=None, bias=True, masked=True, **kw):
    """layers 0: one nn.TransformerEncoderLayer saved alone. masked False: no mask (full lengths)."""
    single = layers == 0
    module = encoder(d, heads, ff, max(layers, 1), **kw)
    if single:
        module = module.layers[0]
    ref.randomize(module, 0.15)
    holder = wrap(module) if wrap else module
    state = prefixed(holder.state_dict() if bias else without_biases(holder), prefix)
    mask = ref.ragged_mask(len(lengths), seq, lengths)
    src = torch.randn(len(lengths), seq, d)
    out = float64(module)(src.double(), src_key_padding_mask=(mask == 0) if masked else None).detach()
    stack = prefix + ("module." if wrap else "")
    c = full({"d_model": d, "nhead": heads, "num_layers": max(layers, 1), "activation": kw.get("activation", "relu"),
              "norm_first": kw.get("norm_first", False), "layer_norm_eps": kw.get("eps", 1e-5)})
    config = config_of(heads, c["activation"], c["norm_first"], c["layer_norm_eps"])
    return (state, config, {"src": src, "src_mask": mask, "src_key_padding_mask": padding(mask)}, {"output": out},
            encoder_spec(stack, c, kw.get("final_norm", False), single) if bias else None,  # a spec layernorm has a bias
            {"preset": "torch-transformer-encoder", "checks": "single", "valid_mask": "src_mask",
             "preset_inputs": ["src", "src_key_padding_mask"] if masked else ["src"], "spec_inputs": ["src", "src_mask"]})


def classifier_case(vocab, d, heads, ff, layers, lengths, seq, classes, masked=True):
    """make_reference.py's nn.TransformerEncoder classifier, saved from nn.DataParallel.
    masked False: full lengths, and the preset is given no attention_mask."""
    c = {"vocab_size": vocab, "d_model": d, "nhead": heads, "num_layers": layers, "dim_feedforward": ff,
         "activation": "relu", "norm_first": False, "layer_norm_eps": 1e-5, "max_len": 20, "pooling": "mean",
         "num_classes": classes}
    module = ref.EncoderClassifier(c).eval()
    ref.randomize(module, 0.15, {"embedding": 0.5})
    state = nn.DataParallel(module).state_dict()
    mask = ref.ragged_mask(len(lengths), seq, lengths)
    ids = ref.random_ids(vocab, (len(lengths), seq), mask)
    hidden, logits = float64(module)(ids, mask)
    return (state, {"nhead": heads, "pooling": "mean"}, {"input_ids": ids, "attention_mask": mask},
            {"last_hidden_state": hidden.detach(), "logits": logits.detach()}, classifier_spec("module.", c),
            {"preset": "torch-encoder", "checks": "single", "valid_mask": "attention_mask",
             "preset_inputs": ["input_ids", "attention_mask"] if masked else ["input_ids"],
             "spec_inputs": ["input_ids", "attention_mask"]})


def transformer_case(d, heads, ff, enc_layers, dec_layers, lengths, src_len, tgt_len, prefix="", masked=True, **kw):
    """masked False: full lengths, the module called without masks, and no src_key_padding_mask written."""
    module = transformer(d, heads, ff, enc_layers, dec_layers, **kw)
    ref.randomize(module, 0.15)
    state = prefixed(module.state_dict(), prefix)
    src_mask = ref.ragged_mask(len(lengths), src_len, lengths)
    src, tgt = torch.randn(len(lengths), src_len, d), torch.randn(len(lengths), tgt_len, d)
    causal = nn.Transformer.generate_square_subsequent_mask(tgt_len).double()
    pad = (src_mask == 0) if masked else None
    out = float64(module)(src.double(), tgt.double(), tgt_mask=causal, src_key_padding_mask=pad,
                          memory_key_padding_mask=pad).detach()
    c = full({"d_model": d, "nhead": heads, "num_encoder_layers": enc_layers, "num_decoder_layers": dec_layers,
              "activation": kw.get("activation", "relu"), "norm_first": kw.get("norm_first", False),
              "layer_norm_eps": kw.get("eps", 1e-5)})
    config = config_of(heads, c["activation"], c["norm_first"], c["layer_norm_eps"])
    inputs = {"src": src, "src_mask": src_mask, "tgt": tgt}
    if masked:
        inputs["src_key_padding_mask"] = padding(src_mask)
    return (state, config, inputs, {"output": out},
            transformer_spec(prefix, c), {"preset": "torch-transformer", "checks": "encoder_decoder",
                                          "valid_mask": None, "spec_inputs": ["src", "src_mask", "tgt"]})


def decoder_case(d, heads, ff, layers, lengths, src_len, tgt_len, prefix="", masked=True, **kw):
    """layers 0: one nn.TransformerDecoderLayer saved alone."""
    single = layers == 0
    module = decoder(d, heads, ff, max(layers, 1), **kw)
    if single:
        module = module.layers[0]
    ref.randomize(module, 0.15)
    state = prefixed(module.state_dict(), prefix)
    memory_mask = ref.ragged_mask(len(lengths), src_len, lengths)
    tgt, memory = torch.randn(len(lengths), tgt_len, d), torch.randn(len(lengths), src_len, d)
    causal = nn.Transformer.generate_square_subsequent_mask(tgt_len).double()
    out = float64(module)(tgt.double(), memory.double(), tgt_mask=causal,
                          memory_key_padding_mask=(memory_mask == 0) if masked else None).detach()
    c = full({"d_model": d, "nhead": heads, "num_layers": max(layers, 1), "activation": kw.get("activation", "relu"),
              "norm_first": kw.get("norm_first", False), "layer_norm_eps": kw.get("eps", 1e-5)})
    config = config_of(heads, c["activation"], c["norm_first"], c["layer_norm_eps"])
    return (state, config, {"tgt": tgt, "memory": memory, "memory_mask": memory_mask,
                            "memory_key_padding_mask": padding(memory_mask)}, {"output": out},
            decoder_spec(prefix, c, kw.get("final_norm", False), single),
            {"preset": "torch-decoder", "checks": "single", "valid_mask": None,
             "preset_inputs": ["tgt", "memory", "memory_key_padding_mask"] if masked else ["tgt", "memory"],
             "spec_inputs": ["tgt", "memory", "memory_mask"]})


def mha_case(e, heads, lengths, q_len, prefix="", bias=True, masked=True):
    module = nn.MultiheadAttention(e, heads, bias=bias, batch_first=True)
    ref.randomize(module, 0.2)
    state = prefixed(module.state_dict(), prefix)
    key_mask = ref.ragged_mask(len(lengths), max(lengths), lengths)
    query, key_value = torch.randn(len(lengths), q_len, e), torch.randn(len(lengths), max(lengths), e)
    kv = key_value.double()
    out, _ = float64(module)(query.double(), kv, kv, key_padding_mask=(key_mask == 0) if masked else None,
                             need_weights=False)
    return (state, {"num_heads": heads}, {"query": query, "key_value": key_value, "key_mask": key_mask,
                                          "key_padding_mask": padding(key_mask)},
            {"output": out.detach()}, mha_spec(prefix, e, heads, bias),
            {"preset": "torch-mha", "checks": "single", "valid_mask": None,
             "preset_inputs": ["query", "key_value", "key_padding_mask"] if masked else ["query", "key_value"],
             "spec_inputs": ["query", "key_value", "key_mask"]})


CASES = [
    ("tm_encoder_postln_relu_d40_h5_l3", lambda: encoder_case(40, 5, 56, 3, (7, 4, 1), 7)),
    ("tm_encoder_preln_gelu_norm_d24_h3_l3_dataparallel",
     lambda: encoder_case(24, 3, 56, 3, (7, 4, 1), 7, wrap=nn.DataParallel, activation="gelu", norm_first=True,
                          eps=1e-6, final_norm=True)),
    ("tm_encoder_postln_norm_d40_h5_l2_compiled",
     lambda: encoder_case(40, 5, 56, 2, (6, 6, 2), 6, prefix="_orig_mod.", final_norm=True)),
    ("tm_encoder_classifier_mean_d40_h5_l2_dataparallel",
     lambda: classifier_case(70, 40, 5, 56, 2, (7, 4, 1), 7, 3)),
    ("tm_encoder_nobias_preln_norm_d40_h5_l2",
     lambda: encoder_case(40, 5, 56, 2, (5, 3, 1), 5, bias=False, norm_first=True, final_norm=True)),
    ("tm_transformer_postln_relu_d40_h5_e2_d3", lambda: transformer_case(40, 5, 56, 2, 3, (7, 4, 1), 7, 5)),
    ("tm_transformer_preln_gelu_d24_h3_e3_d2_wrapped",
     lambda: transformer_case(24, 3, 56, 3, 2, (5, 2, 5), 5, 6, prefix="transformer.", activation="gelu",
                              norm_first=True)),
    ("tm_decoder_postln_d24_h3_l2", lambda: decoder_case(24, 3, 56, 2, (7, 4, 1), 7, 5)),
    ("tm_decoder_layer_preln_gelu_d40_h5_alone",
     lambda: decoder_case(40, 5, 56, 0, (6, 2, 4), 6, 4, prefix="block.", activation="gelu", norm_first=True)),
    ("tm_encoder_layer_gelu_d40_h5_alone", lambda: encoder_case(40, 5, 56, 0, (7, 4, 1), 7, activation="gelu")),
    ("tm_mha_e40_h5", lambda: mha_case(40, 5, (7, 4, 1), 5)),
    ("tm_mha_nobias_e24_h3_compiled", lambda: mha_case(24, 3, (6, 3), 4, prefix="_orig_mod.", bias=False)),
    # Called as PyTorch allows, without a mask: the preset is given none either.
    ("tm_encoder_nomask_postln_d40_h5_l2", lambda: encoder_case(40, 5, 56, 2, (6, 6, 6), 6, masked=False)),
    ("tm_encoder_classifier_nomask_d40_h5_l2", lambda: classifier_case(70, 40, 5, 56, 2, (7, 7, 7), 7, 3, masked=False)),
    ("tm_transformer_nomask_d24_h3_e2_d2", lambda: transformer_case(24, 3, 56, 2, 2, (5, 5), 5, 4, masked=False)),
    ("tm_decoder_nomask_d24_h3_l2", lambda: decoder_case(24, 3, 56, 2, (5, 5, 5), 5, 4, masked=False)),
    ("tm_mha_nomask_e24_h3", lambda: mha_case(24, 3, (4, 4), 3, masked=False)),
]


def write_case(out_dir, name, built):
    state, config, inputs, outputs, spec, extra = built
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir, exist_ok=True)
    torch.save(state, os.path.join(case_dir, "weights.pt"))
    ref.save_arrays(os.path.join(case_dir, "inputs"), inputs)
    ref.save_arrays(os.path.join(case_dir, "expected"), outputs)
    preset_inputs = extra.pop("preset_inputs", list(inputs))
    case = {"family": "torch-module", "weights": "weights.pt", "config": "config.json",
            "spec": "spec.json" if spec else None, "inputs": preset_inputs, "outputs": list(outputs), **extra}
    files = [("config.json", config), ("case.json", case)] + ([("spec.json", spec)] if spec else [])
    for filename, content in files:
        with open(os.path.join(case_dir, filename), "w") as f:
            json.dump(content, f, indent=1)
            f.write("\n")
    print(f"{name}: {extra['preset']}, {len(state)} tensors, config {json.dumps(config)}", flush=True)


def write_errors(out_dir):
    """Checkpoints the presets must refuse, with a message saying why."""
    case_dir = os.path.join(out_dir, "torch_module_errors")
    os.makedirs(case_dir, exist_ok=True)
    wide, narrow = encoder(40, 5, 56, 3).state_dict(), encoder(24, 3, 56, 3).state_dict()
    mixed = {k: (narrow[k] if k.startswith("layers.1.") else v) for k, v in wide.items()}
    torch.save(mixed, os.path.join(case_dir, "layer_mismatch.pt"))
    two = {**prefixed(wide, "enc_a."), **prefixed(narrow, "enc_b.")}
    torch.save(two, os.path.join(case_dir, "two_encoders.pt"))
    with open(os.path.join(case_dir, "case.json"), "w") as f:
        json.dump({"family": "torch-module-errors"}, f)


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    torch.set_num_threads(min(2, torch.get_num_threads()))
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
    for index, (name, build) in enumerate(CASES):
        torch.manual_seed(SEED + index)
        write_case(argv[0], name, build())
    torch.manual_seed(SEED - 1)
    write_errors(argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
