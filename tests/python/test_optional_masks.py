#!/usr/bin/python3
"""PyTorch's nn.MultiheadAttention converted (torch-mha) and driven from Python by
PyTorch's names: key_padding_mask in PyTorch's sense (1 = pad) matches the module called
with it, and left out (model.inputs says it is optional, absent_fill 0) matches the module
called without a mask, also as focal.convert's self-test inputs.
Usage: test_optional_masks.py WORK_DIR (PYTHONPATH: the build's python/)"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn

import focal


def main(work):
    os.makedirs(work, exist_ok=True)
    torch.manual_seed(33)
    module = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    weights, config = os.path.join(work, "mha.pt"), os.path.join(work, "mha.json")
    torch.save(module.state_dict(), weights)
    with open(config, "w") as f:
        json.dump({"num_heads": 4}, f)
    model = focal.load(focal.convert(preset="torch-mha", weights=weights, config=config, max_batch=2,
                                     max_seq=8).bytes)
    inputs = {t.name: t.absent_fill for t in model.inputs}
    assert inputs == {"query": None, "key_value": None, "key_padding_mask": 0}, inputs

    query, key_value = torch.randn(2, 3, 16), torch.randn(2, 5, 16)
    pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
    session = focal.Session(model, max_batch=2)
    with torch.no_grad():
        cases = [("with key_padding_mask", {"key_padding_mask": pad.numpy().astype(np.int32)}, pad),
                 ("without a mask", {}, None)]
        for label, mask, torch_mask in cases:
            want, _ = module(query, key_value, key_value, key_padding_mask=torch_mask, need_weights=False)
            got = session.run({"query": query.numpy(), "key_value": key_value.numpy(), **mask})["output"]
            error = float(np.abs(got - want.numpy()).max())
            print(f"torch-mha {label}: max error {error:.3g}")
            assert error < 1e-5, (label, error)
    # Without the mask the padded row differs from the masked run: the mask is used when given.
    masked = session.run({"query": query.numpy(), "key_value": key_value.numpy(),
                          "key_padding_mask": pad.numpy().astype(np.int32)})["output"]
    unmasked = session.run({"query": query.numpy(), "key_value": key_value.numpy()})["output"]
    assert np.abs(masked[1] - unmasked[1]).max() > 1e-3 and np.abs(masked[0] - unmasked[0]).max() < 1e-6

    # focal.convert(self_test=DIR) whose inputs leave the optional mask out: the double
    # evaluation fills it as the engine does, against PyTorch's unmasked output; the
    # masked output as the expected one fails the self-test.
    for expected, passes in ((unmasked_torch(module, query, key_value), True), (masked, False)):
        directory = os.path.join(work, "self_test_" + str(passes))
        for sub in ("inputs", "expected"):
            os.makedirs(os.path.join(directory, sub), exist_ok=True)
        np.save(os.path.join(directory, "inputs", "query.npy"), query.numpy())
        np.save(os.path.join(directory, "inputs", "key_value.npy"), key_value.numpy())
        np.save(os.path.join(directory, "expected", "output.npy"), expected)
        try:
            converted = focal.convert(preset="torch-mha", weights=weights, config=config, max_batch=2, max_seq=8,
                                      self_test=directory)
            assert passes and converted.self_tests == 1, converted.self_tests
        except focal.Error as error:
            assert not passes, error
            print(f"self-test against the masked output refused: {str(error)[:80]}")
    print("convert self_test=DIR without key_padding_mask: as PyTorch without a mask")


def unmasked_torch(module, query, key_value):
    with torch.no_grad():
        return module(query, key_value, key_value, need_weights=False)[0].numpy()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
