#!/usr/bin/python3
"""focal.convert(quantize="static") from Python: the same bytes as `focal convert --quantize
static` (ctest's cli_static_int8 writes that model and the RNN reference cases into
CLI_WORK_DIR), its bit-exact self-test passing through focal.verify, its ops' forms
(Op.int8_activations: the four int8 forms and the f32 Softmax head), and a classifier head
with no int8 form (a sigmoid Dense) refused as focal.Error naming the op.
Usage: test_static_int8.py CLI_WORK_DIR"""

import os
import sys

import focal

CASE = "rnn_classifier_kws_softmax4_e64_h64_a32_v1000"
SIGMOID_CASE = "rnn_classifier_sigmoid_e16_h16_a12"


def convert(work, case, max_batch, max_seq, self_test):
    return focal.convert(preset="rnn-classifier", weights=f"{work}/{case}/weights.safetensors",
                         config=f"{work}/{case}/config.json", quantize="static", max_batch=max_batch,
                         max_seq=max_seq, self_test=self_test, self_test_tolerance=0.1)


def main(work):
    conversion = convert(work, CASE, 1, 64, f"{work}/self_test")
    with open(f"{work}/classifier_static.focal", "rb") as f:
        assert conversion.bytes == f.read(), "focal.convert and focal convert wrote different models"
    model = focal.load(conversion.bytes)
    report = focal.verify(model)
    assert report["passed"] and report["cases"] == 1 and report["max_abs_error"] == 0.0, report
    forms = [(op.kind, op.int8_activations) for op in model.ops]
    assert forms == [("Embedding", True), ("Recurrent", True), ("AttentionPool", True), ("Dense", True),
                     ("Softmax", False)], forms

    try:
        convert(work, SIGMOID_CASE, 3, 16, f"{work}/{SIGMOID_CASE}")
    except focal.Error as e:
        message = str(e)
        assert "--quantize static" in message and "classifier.sigmoid" in message, message
    else:
        raise AssertionError("a sigmoid head was converted to static int8")
    print("focal.convert(quantize='static'): the CLI's bytes, its self-test passes; a sigmoid head refused")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
