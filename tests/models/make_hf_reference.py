#!/usr/bin/python3
"""Writes a Hugging Face-layout BertForSequenceClassification reference case (run with Debian's python3-torch).

Usage: make_hf_reference.py OUT_DIR

OUT_DIR/bert_hf_cls3_l2_d40_h5/ holds what a user of transformers has after
model.save_pretrained(): weights.{pt,safetensors,npz} with the encoder under "bert." and
the head "classifier.weight" [3, 40], and config.json as transformers writes it (keys
sorted; architectures, model_type, id2label and label2id, problem_type,
transformers_version, and no num_labels: PretrainedConfig derives it from id2label).
The sizes are none of BertConfig's defaults (vocab 120, hidden 40, 2 layers, 5 heads,
intermediate 72, 24 positions, 3 token types), so a converter that fell back to a
default instead of reading the tensors or the config would fail. Inputs are a ragged
padded batch in which each label is the most probable one of some row; expected outputs come from make_reference.py's BERT in float64, written as
its bert cases are (case.json family "bert"), with "label_names" listing id2label in id
order. weights_renamed.npz is the same state_dict under names no preset knows
("module.encoder." for "bert.", "module.head." for "classifier."), for --rename.
"""
import json
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402

NAME = "bert_hf_cls3_l2_d40_h5"
LABELS = ["negative", "neutral", "positive"]
SIZES = {"vocab_size": 120, "hidden_size": 40, "num_hidden_layers": 2, "num_attention_heads": 5,
         "intermediate_size": 72, "max_position_embeddings": 24, "type_vocab_size": 3}


class BertForSequenceClassification(nn.Module):
    """transformers' layout: BertModel under `bert`, the head `classifier` (dropout is identity in eval)."""

    def __init__(self, c, labels):
        super().__init__()
        self.bert = ref.Bert(c)
        self.classifier = nn.Linear(c["hidden_size"], labels)

    def forward(self, input_ids, attention_mask, token_type_ids):
        out = self.bert(input_ids, attention_mask, token_type_ids)
        out["logits"] = self.classifier(out["pooler_output"])
        return out


def hf_config_json():
    """config.json as BertConfig.save_pretrained writes it for this model (sorted keys)."""
    config = dict(SIZES)
    config.update({
        "architectures": ["BertForSequenceClassification"], "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "id2label": {str(i): name for i, name in enumerate(LABELS)}, "initializer_range": 0.02,
        "label2id": {name: i for i, name in enumerate(LABELS)}, "layer_norm_eps": 1e-12,
        "model_type": "bert", "pad_token_id": 0, "position_embedding_type": "absolute",
        "problem_type": "single_label_classification", "torch_dtype": "float32",
        "transformers_version": "4.36.2", "use_cache": True})
    return dict(sorted(config.items()))


def build(batch=4, seq=11, lengths=(11, 7, 1, 4)):
    c = dict(SIZES, layer_norm_eps=1e-12, hidden_act="gelu")
    model = BertForSequenceClassification(c, len(LABELS)).eval()
    ref.randomize(model, 0.1, {"embeddings": 0.2, "classifier": 0.5})
    mask = ref.ragged_mask(batch, seq, lengths)
    ids = ref.random_ids(c["vocab_size"], (batch, seq), mask)
    types = (torch.arange(seq)[None] % 3 * mask).long()    # all three token types appear
    with torch.no_grad():
        out = BertForSequenceClassification(c, len(LABELS)).double()
        out.load_state_dict(model.state_dict())
        out = out(ids, mask, types)
    out["last_hidden_state"] = ref.zero_padded(out["last_hidden_state"], mask)
    inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    extra = {"padded_positions_zeroed": True, "label_names": LABELS, "renamed_weights": "weights_renamed.npz"}
    return model, hf_config_json(), inputs, out, extra


def renamed(name):
    if name.startswith("bert."):
        return "module.encoder." + name[len("bert."):]
    return "module.head." + name[len("classifier."):]


def main(argv):
    out_dir = argv[0]
    for attempt in range(20):  # re-drawn until every label wins a row, so printed names are all tested
        seed = ref.BASE_SEED + 77 + attempt
        torch.manual_seed(seed)
        built = build()
        if len(set(built[3]["logits"].argmax(-1).tolist())) == len(LABELS):
            break
    else:
        raise RuntimeError("no weights draw gave every label a row")
    ref.write_case(out_dir, NAME, "bert", seed, "safetensors", built)
    state = {renamed(k): v.detach().to(torch.float32).contiguous().clone() for k, v in built[0].state_dict().items()}
    ref.save_weights(os.path.join(out_dir, NAME, "weights_renamed.npz"), "npz", state)
    print(ref.describe(NAME, "safetensors", built, None))


if __name__ == "__main__":
    main(sys.argv[1:])
