#!/usr/bin/python3
"""focal.convert(fit=...) from Python: the bytes `focal convert --fit` wrote (ctest's
cli_fit writes that model and the reference case into CLI_WORK_DIR) and its report as
Conversion.fit, the same table as the CLI's --json.
Usage: test_fit.py CLI_WORK_DIR"""

import os
import sys

import focal

CASE = "rnn_classifier_kws_softmax4_e64_h64_a32_v1000"


def main(work):
    conversion = focal.convert(preset="rnn-classifier", weights=f"{work}/{CASE}/weights.safetensors",
                               config=f"{work}/{CASE}/config.json", max_batch=1, max_seq=64, strict=True,
                               self_test=f"{work}/self_test", self_test_tolerance=0.1,
                               calibration=f"{work}/calibration", fit="ram=64K,flash=256K")
    with open(f"{work}/fit.focal", "rb") as f:
        assert conversion.bytes == f.read(), "focal.convert and focal convert chose differently"
    report = conversion.fit
    assert report["part"] == {"ram": 65536, "flash": 262144}, report
    assert [c["choice"] for c in report["choices"] if c.get("chosen")] == ["static int8"], report
    plain = focal.convert(preset="rnn-classifier", weights=f"{work}/{CASE}/weights.safetensors",
                          config=f"{work}/{CASE}/config.json", max_batch=1, max_seq=64)
    assert plain.fit is None
    print("focal.convert(fit=...): the CLI's bytes and table")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
