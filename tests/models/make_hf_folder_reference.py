#!/usr/bin/python3
"""Writes Hugging Face folders as the hub serves them, with float64 references (run with Debian's python3-torch).

Usage: make_hf_folder_reference.py OUT_DIR

Each case OUT_DIR/<name>/ holds folder/ (what `focal convert --hf` reads: config.json,
the weights as transformers' save_pretrained writes them, tokenizer files,
generation_config.json, and for sentence-transformers modules.json, 1_Pooling/config.json,
2_Normalize/ and sentence_bert_config.json), inputs/ and expected/ as make_reference.py's
cases, and case.json {"family": "hf-folder", "folder": "folder", "inputs", "outputs",
"preset" (the one config.json must pick), "weights_layout"}. Expected last_hidden_state
is zeroed at padded positions (compared at valid ones only).

The models are re-implemented here from transformers 4.36.2's modeling source, with its
module names, so their state_dicts are what the real classes save:
  DistilBERT  src/transformers/models/distilbert/modeling_distilbert.py: Embeddings
              (word + position, LayerNorm eps 1e-12), MultiHeadSelfAttention (q_lin,
              k_lin, v_lin, out_lin; q / sqrt(dim_per_head)), TransformerBlock
              (sa_layer_norm(attn + x), output_layer_norm(ffn.lin2(act(ffn.lin1)) + sa)),
              DistilBertForSequenceClassification (hidden[:, 0] -> pre_classifier -> ReLU
              -> classifier; dropout is identity in eval).
  RoBERTa     src/transformers/models/roberta/modeling_roberta.py: RobertaEmbeddings with
              create_position_ids_from_input_ids (mask = ids != padding_idx;
              cumsum(mask) * mask + padding_idx), BERT's layers (make_reference.py's
              BertLayer, from modeling_bert.py), RobertaPooler, RobertaClassificationHead
              (features[:, 0] -> dense -> tanh -> out_proj), RobertaForSequenceClassification
              (add_pooling_layer=False). XLM-R (modeling_xlm_roberta.py) is the same code.
  sentence-transformers 2.2.2 sentence_transformers/models/Pooling.py (mean:
              sum(h * mask) / clamp(sum(mask), 1e-9); cls: h[:, 0]; max: the maximum over
              positions after setting padded ones to -1e9) and Normalize.py
              (F.normalize(p=2, dim=1)).
Weights are random at non-default sizes; inputs are ragged batches (RoBERTa's padded
with pad_token_id 1, as its tokenizer pads). Layouts: model.safetensors, sharded
safetensors (model-0000i-of-0000n.safetensors + model.safetensors.index.json),
pytorch_model.bin, sharded pytorch_model-0000i-of-0000n.bin + its index.

decoder_generation/ is a Llama folder (make_reference.py's Llama) whose
generation_config.json names as eos_token_id a token greedy decoding produces at step
"eos_step" (case.json), so `focal generate` must stop there: expected/greedy_ids holds
the 24 greedy tokens.
"""
import copy
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402
from case_files import save_arrays, save_weights, write_safetensors  # noqa: E402

TRANSFORMERS_VERSION = "4.36.2"
GREEDY_STEPS = 24


# ---------------------------------------------------------------------------------------------
# DistilBERT

class DistilEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["dim"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["dim"])
        self.LayerNorm = nn.LayerNorm(c["dim"], eps=1e-12)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        return self.LayerNorm(self.word_embeddings(ids) + self.position_embeddings(positions)[None])


class DistilAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["dim"]
        self.n_heads = c["n_heads"]
        self.q_lin, self.k_lin, self.v_lin, self.out_lin = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, additive):
        q, k, v = (ref.split_heads(proj(x), self.n_heads) for proj in (self.q_lin, self.k_lin, self.v_lin))
        return self.out_lin(ref.merge_heads(ref.attention(q, k, v, additive)))


class DistilFFN(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lin1 = nn.Linear(c["dim"], c["hidden_dim"])
        self.lin2 = nn.Linear(c["hidden_dim"], c["dim"])

    def forward(self, x):
        return self.lin2(ref.gelu_erf(self.lin1(x)))


class DistilBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = DistilAttention(c)
        self.sa_layer_norm = nn.LayerNorm(c["dim"], eps=1e-12)
        self.ffn = DistilFFN(c)
        self.output_layer_norm = nn.LayerNorm(c["dim"], eps=1e-12)

    def forward(self, x, additive):
        sa = self.sa_layer_norm(self.attention(x, additive) + x)
        return self.output_layer_norm(self.ffn(sa) + sa)


class DistilTransformer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(DistilBlock(c) for _ in range(c["n_layers"]))


class DistilBertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = DistilEmbeddings(c)
        self.transformer = DistilTransformer(c)

    def forward(self, ids, mask):
        h = self.embeddings(ids)
        additive = additive_mask(mask, h.dtype)
        for layer in self.transformer.layer:
            h = layer(h, additive)
        return h


class DistilBertForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.distilbert = DistilBertModel(c)
        self.pre_classifier = nn.Linear(c["dim"], c["dim"])
        self.classifier = nn.Linear(c["dim"], len(c["id2label"]))

    def forward(self, input_ids, attention_mask):
        h = self.distilbert(input_ids, attention_mask)
        logits = self.classifier(torch.relu(self.pre_classifier(h[:, 0])))
        return {"last_hidden_state": h, "logits": logits}


# ---------------------------------------------------------------------------------------------
# RoBERTa / XLM-R

def additive_mask(mask, dtype):
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


def create_position_ids_from_input_ids(input_ids, padding_idx):
    mask = input_ids.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class RobertaEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden_size"]
        self.padding_idx = c["pad_token_id"]
        self.word_embeddings = nn.Embedding(c["vocab_size"], d)
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], d)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], d)
        self.LayerNorm = nn.LayerNorm(d, eps=c["layer_norm_eps"])

    def forward(self, ids):
        positions = create_position_ids_from_input_ids(ids, self.padding_idx)
        types = torch.zeros_like(ids)  # RobertaModel's default token_type_ids
        return self.LayerNorm(self.word_embeddings(ids) + self.token_type_embeddings(types)
                              + self.position_embeddings(positions))


class RobertaModel(nn.Module):
    def __init__(self, c, pooler=True):
        super().__init__()
        self.embeddings = RobertaEmbeddings(c)
        self.encoder = ref.BertEncoder(c)
        self.pooler = ref.BertPooler(c) if pooler else None

    def forward(self, ids, mask):
        h = self.embeddings(ids)
        additive = additive_mask(mask, h.dtype)
        for layer in self.encoder.layer:
            h = layer(h, additive)
        out = {"last_hidden_state": h}
        if self.pooler is not None:
            out["pooler_output"] = self.pooler(h)
        return out


class RobertaClassificationHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.out_proj = nn.Linear(c["hidden_size"], len(c["id2label"]))

    def forward(self, h):
        return self.out_proj(torch.tanh(self.dense(h[:, 0])))


class RobertaForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.roberta = RobertaModel(c, pooler=False)
        self.classifier = RobertaClassificationHead(c)

    def forward(self, input_ids, attention_mask):
        out = self.roberta(input_ids, attention_mask)
        out["logits"] = self.classifier(out["last_hidden_state"])
        return out


# ---------------------------------------------------------------------------------------------
# sentence-transformers Pooling and Normalize

def st_pool(h, mask, mode):
    if mode == "cls":
        return h[:, 0]
    if mode == "max":  # Pooling.py: padded positions set to -1e9 first
        return torch.where(mask[..., None].bool(), h, torch.full_like(h, -1e9)).max(1).values
    m = mask[..., None].to(h.dtype)
    return (h * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)


def pooling_config(dim, mode):
    keys = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")
    config = {"word_embedding_dimension": dim, **{f"pooling_mode_{k}": False for k in keys}}
    config["pooling_mode_" + {"cls": "cls_token", "mean": "mean_tokens", "max": "max_tokens"}[mode]] = True
    config["include_prompt"] = True
    return config


def write_sentence_files(folder, dim, mode, normalize, max_seq):
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        os.makedirs(os.path.join(folder, "2_Normalize"), exist_ok=True)
    write_json(os.path.join(folder, "modules.json"), modules)
    write_json(os.path.join(folder, "1_Pooling", "config.json"), pooling_config(dim, mode))
    write_json(os.path.join(folder, "sentence_bert_config.json"), {"max_seq_length": max_seq, "do_lower_case": False})
    write_json(os.path.join(folder, "config_sentence_transformers.json"),
               {"__version__": {"sentence_transformers": "2.2.2", "transformers": TRANSFORMERS_VERSION,
                                "pytorch": "1.13.1"}})


# ---------------------------------------------------------------------------------------------
# Files as the hub lays them out

def write_json(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(content, f, indent=2, sort_keys=isinstance(content, dict))
        f.write("\n")


def float32_state(model):
    return {k: v.detach().to(torch.float32).contiguous().clone() for k, v in model.state_dict().items()}


def write_weights(folder, state, layout):
    """layout: safetensors, sharded-safetensors, bin or sharded-bin (2 shards, split by tensor order)."""
    if layout == "safetensors":
        write_safetensors(os.path.join(folder, "model.safetensors"), state)
        return
    if layout == "bin":
        save_weights(os.path.join(folder, "pytorch_model.bin"), "pt", state)
        return
    names = list(state)
    halves = (names[:len(names) // 2], names[len(names) // 2:])
    base, ext = ("model", "safetensors") if layout == "sharded-safetensors" else ("pytorch_model", "bin")
    weight_map = {}
    for i, half in enumerate(halves):
        shard = f"{base}-{i + 1:05d}-of-{len(halves):05d}.{ext}"
        part = {k: state[k] for k in half}
        if ext == "safetensors":
            write_safetensors(os.path.join(folder, shard), part)
        else:
            save_weights(os.path.join(folder, shard), "pt", part)
        weight_map.update({k: shard for k in half})
    total = sum(t.numel() * 4 for t in state.values())
    write_json(os.path.join(folder, f"{base}.{ext}.index.json"),
               {"metadata": {"total_size": total}, "weight_map": weight_map})


def write_wordpiece_files(folder, vocab_size):
    """vocab.txt (BERT's specials first, then filler words) and tokenizer_config.json."""
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(vocab_size - 5)]
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(words) + "\n")
    write_json(os.path.join(folder, "tokenizer_config.json"), {"do_lower_case": True, "tokenizer_class": "BertTokenizer"})


def hf_config(sizes, model_type, architectures, **extra):
    config = dict(sizes, model_type=model_type, architectures=architectures, torch_dtype="float32",
                  transformers_version=TRANSFORMERS_VERSION, **extra)
    return dict(sorted(config.items()))


def labels_config(labels):
    return {"id2label": {str(i): n for i, n in enumerate(labels)}, "label2id": {n: i for i, n in enumerate(labels)}}


def write_case(out_dir, name, preset, layout, model, config, inputs, outputs, files, seed):
    case_dir = os.path.join(out_dir, name)
    folder = os.path.join(case_dir, "folder")
    os.makedirs(folder, exist_ok=True)
    write_json(os.path.join(folder, "config.json"), config)
    write_weights(folder, float32_state(model), layout)
    files(folder)
    save_arrays(os.path.join(case_dir, "inputs"), inputs)
    save_arrays(os.path.join(case_dir, "expected"), outputs)
    write_json(os.path.join(case_dir, "case.json"),
               {"family": "hf-folder", "preset": preset, "folder": "folder", "weights_layout": layout,
                "inputs": list(inputs), "outputs": list(outputs), "rtol": ref.TOLERANCE, "atol": ref.TOLERANCE,
                "seed": seed, "padded_positions_zeroed": True})
    print(f"{name}: {preset}, {layout}, {sum(p.numel() for p in model.parameters())} params")


def run64(model, *args):
    """The model's forward in float64 on a copy (the float32 weights are what the folder holds)."""
    with torch.no_grad():
        return copy.deepcopy(model).double()(*args)


def finish_outputs(out, mask):
    out = dict(out)
    if "last_hidden_state" in out:
        out["last_hidden_state"] = ref.zero_padded(out["last_hidden_state"], mask)
    return out


# ---------------------------------------------------------------------------------------------
# Cases

BATCH, SEQ, LENGTHS = 4, 9, (9, 5, 1, 7)


def distilbert_case(out_dir, seed):
    torch.manual_seed(seed)
    labels = ["no", "maybe", "yes", "unsure"]
    sizes = {"vocab_size": 70, "dim": 36, "n_layers": 2, "n_heads": 3, "hidden_dim": 52,
             "max_position_embeddings": 20}
    c = dict(sizes, **labels_config(labels))
    model = DistilBertForSequenceClassification(c).eval()
    ref.randomize(model, 0.1, {"embeddings": 0.2, "classifier": 0.5})
    mask = ref.ragged_mask(BATCH, SEQ, LENGTHS)
    ids = ref.random_ids(c["vocab_size"], (BATCH, SEQ), mask)
    out = finish_outputs(run64(model, ids, mask), mask)
    config = hf_config(sizes, "distilbert", ["DistilBertForSequenceClassification"], activation="gelu",
                       attention_dropout=0.1, dropout=0.1, initializer_range=0.02, pad_token_id=0,
                       qa_dropout=0.1, seq_classif_dropout=0.2, sinusoidal_pos_embds=False, tie_weights_=True,
                       **labels_config(labels))
    write_case(out_dir, "hf_distilbert_cls4_l2_d36_h3", "distilbert", "safetensors", model, config,
               {"input_ids": ids, "attention_mask": mask}, out,
               lambda folder: write_wordpiece_files(folder, c["vocab_size"]), seed)


def roberta_inputs(vocab, pad):
    mask = ref.ragged_mask(BATCH, SEQ, LENGTHS)
    ids = torch.randint(pad + 1, vocab, (BATCH, SEQ))
    return torch.where(mask.bool(), ids, torch.full_like(ids, pad)), mask


def roberta_sizes(vocab, d, layers, heads, inner, positions):
    return {"vocab_size": vocab, "hidden_size": d, "num_hidden_layers": layers, "num_attention_heads": heads,
            "intermediate_size": inner, "max_position_embeddings": positions, "type_vocab_size": 1}


def roberta_config_extra():
    return {"attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "initializer_range": 0.02, "layer_norm_eps": 1e-5, "pad_token_id": 1,
            "position_embedding_type": "absolute", "use_cache": True}


def roberta_case(out_dir, seed):
    torch.manual_seed(seed)
    labels = ["negative", "positive"]
    sizes = roberta_sizes(90, 32, 3, 4, 56, SEQ + 2 + 3)  # 3 rows more than the batch needs
    c = dict(sizes, pad_token_id=1, layer_norm_eps=1e-5, hidden_act="gelu", **labels_config(labels))
    model = RobertaForSequenceClassification(c).eval()
    ref.randomize(model, 0.1, {"embeddings": 0.2, "classifier": 0.5})
    ids, mask = roberta_inputs(c["vocab_size"], 1)
    out = finish_outputs(run64(model, ids, mask), mask)
    config = hf_config(sizes, "roberta", ["RobertaForSequenceClassification"], **roberta_config_extra(),
                       **labels_config(labels))

    def tokenizer_files(folder):  # the hub's current layout: tokenizer.json alone
        write_json(os.path.join(folder, "tokenizer.json"), {"version": "1.0", "model": {"type": "BPE"}})

    write_case(out_dir, "hf_roberta_cls2_l3_d32_h4", "roberta", "sharded-safetensors", model, config,
               {"input_ids": ids, "attention_mask": mask}, out, tokenizer_files, seed)


def xlmr_case(out_dir, seed):
    torch.manual_seed(seed)
    sizes = roberta_sizes(64, 24, 2, 2, 40, SEQ + 2)
    c = dict(sizes, pad_token_id=1, layer_norm_eps=1e-5, hidden_act="gelu")
    model = RobertaModel(c).eval()  # XLMRobertaModel saved on its own: no prefix, with the pooler
    ref.randomize(model, 0.1, {"embeddings": 0.2})
    ids, mask = roberta_inputs(c["vocab_size"], 1)
    out = finish_outputs(run64(model, ids, mask), mask)
    config = hf_config(sizes, "xlm-roberta", ["XLMRobertaModel"], **roberta_config_extra())
    write_case(out_dir, "hf_xlmr_l2_d24_h2", "roberta", "bin", model, config,
               {"input_ids": ids, "attention_mask": mask}, out, lambda folder: None, seed)


def sentence_bert_case(out_dir, seed):
    """A MiniLM/BGE-style sentence-transformers folder: BertModel, mean pooling, Normalize."""
    torch.manual_seed(seed)
    c = ref.bert_config(80, 30, 2, 5, 44)
    c["type_vocab_size"] = 2
    model = ref.Bert(c).eval()  # BertModel saved on its own (the Transformer module): no prefix
    ref.randomize(model, 0.1, {"embeddings": 0.2})
    mask = ref.ragged_mask(BATCH, SEQ, LENGTHS)
    ids = ref.random_ids(c["vocab_size"], (BATCH, SEQ), mask)
    types = torch.zeros_like(ids)
    out = run64(model, ids, mask, types)
    pooled = F.normalize(st_pool(out["last_hidden_state"], mask, "mean"), p=2, dim=1)
    outputs = {"sentence_embedding": pooled, "last_hidden_state": ref.zero_padded(out["last_hidden_state"], mask),
               "pooler_output": out["pooler_output"]}
    sizes = {k: c[k] for k in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                               "intermediate_size", "max_position_embeddings", "type_vocab_size")}
    config = hf_config(sizes, "bert", ["BertModel"], hidden_act="gelu", layer_norm_eps=1e-12, pad_token_id=0,
                       position_embedding_type="absolute")

    def files(folder):
        write_wordpiece_files(folder, c["vocab_size"])
        write_sentence_files(folder, c["hidden_size"], "mean", True, 16)

    write_case(out_dir, "hf_st_bert_mean_norm_d30", "bert", "safetensors", model, config,
               {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}, outputs, files, seed)


def sentence_distilbert_case(out_dir, seed):
    """sentence-transformers over DistilBERT with CLS pooling and no Normalize, sharded .bin."""
    torch.manual_seed(seed)
    sizes = {"vocab_size": 60, "dim": 28, "n_layers": 2, "n_heads": 4, "hidden_dim": 40,
             "max_position_embeddings": 24}
    model = DistilBertModel(sizes).eval()
    ref.randomize(model, 0.1, {"embeddings": 0.2})
    mask = ref.ragged_mask(BATCH, SEQ, LENGTHS)
    ids = ref.random_ids(sizes["vocab_size"], (BATCH, SEQ), mask)
    h = run64(model, ids, mask)
    outputs = {"sentence_embedding": st_pool(h, mask, "cls"), "last_hidden_state": ref.zero_padded(h, mask)}
    config = hf_config(sizes, "distilbert", ["DistilBertModel"], activation="gelu", pad_token_id=0,
                       sinusoidal_pos_embds=False)

    def files(folder):
        write_wordpiece_files(folder, sizes["vocab_size"])
        write_sentence_files(folder, sizes["dim"], "cls", False, 12)

    write_case(out_dir, "hf_st_distilbert_cls_d28", "distilbert", "sharded-bin", model, config,
               {"input_ids": ids, "attention_mask": mask}, outputs, files, seed)


def sentence_xlmr_case(out_dir, seed):
    """sentence-transformers over XLM-R (paraphrase-multilingual style) with max pooling and Normalize."""
    torch.manual_seed(seed)
    sizes = roberta_sizes(72, 20, 2, 4, 36, SEQ + 2 + 1)
    c = dict(sizes, pad_token_id=1, layer_norm_eps=1e-5, hidden_act="gelu")
    model = RobertaModel(c).eval()
    ref.randomize(model, 0.1, {"embeddings": 0.2})
    ids, mask = roberta_inputs(c["vocab_size"], 1)
    out = run64(model, ids, mask)
    pooled = F.normalize(st_pool(out["last_hidden_state"], mask, "max"), p=2, dim=1)
    outputs = {"sentence_embedding": pooled, "last_hidden_state": ref.zero_padded(out["last_hidden_state"], mask)}
    config = hf_config(sizes, "xlm-roberta", ["XLMRobertaModel"], **roberta_config_extra())
    write_case(out_dir, "hf_st_xlmr_max_norm_d20", "roberta", "safetensors", model, config,
               {"input_ids": ids, "attention_mask": mask}, outputs,
               lambda folder: write_sentence_files(folder, sizes["hidden_size"], "max", True, SEQ), seed)


def decoder_generation_case(out_dir, seed):
    """A Llama folder whose generation_config.json eos is a token greedy decoding reaches at a later step."""
    torch.manual_seed(seed)
    c = ref.llama_config(96, 32, 48, 2, 4, 2, 8)
    model, _, inputs, outputs, _ = ref.llama_case(c, 5)
    greedy = outputs["greedy_ids"][:GREEDY_STEPS].tolist()
    eos_step = next(i for i in range(3, GREEDY_STEPS) if greedy[i] not in greedy[:i])
    case_dir = os.path.join(out_dir, "hf_decoder_generation")
    folder = os.path.join(case_dir, "folder")
    config = hf_config({k: c[k] for k in c}, "llama", ["LlamaForCausalLM"], hidden_act="silu", bos_token_id=1,
                       eos_token_id=2)
    write_json(os.path.join(folder, "config.json"), config)
    write_json(os.path.join(folder, "generation_config.json"),
               {"_from_model_config": False, "bos_token_id": 1, "eos_token_id": [greedy[eos_step], 2],
                "transformers_version": TRANSFORMERS_VERSION})
    write_weights(folder, float32_state(model), "safetensors")
    save_arrays(os.path.join(case_dir, "inputs"), inputs)
    save_arrays(os.path.join(case_dir, "expected"), {"greedy_ids": torch.tensor(greedy, dtype=torch.int32)})
    write_json(os.path.join(case_dir, "case.json"),
               {"family": "hf-generation", "preset": "llama", "folder": "folder", "eos_step": eos_step,
                "eos_token_id": greedy[eos_step], "inputs": list(inputs), "outputs": ["greedy_ids"], "seed": seed})
    print(f"hf_decoder_generation: llama, eos {greedy[eos_step]} at step {eos_step}")


def main(argv):
    out_dir = argv[0]
    for i, make in enumerate((distilbert_case, roberta_case, xlmr_case, sentence_bert_case,
                              sentence_distilbert_case, decoder_generation_case, sentence_xlmr_case)):
        make(out_dir, ref.BASE_SEED + 1900 + i)


if __name__ == "__main__":
    main(sys.argv[1:])
