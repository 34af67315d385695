#!/usr/bin/python3
"""The attention benchmark's prefill shapes (bench/attention_bench.cpp: batch 1, 8 heads,
head_dim 64, n = 128, 512, 2048) as ONNX graphs of one com.microsoft MultiHeadAttention
(ONNX Runtime's fused CPU attention) on q, k, v [1, n, 512] f32, for attention_ort.js.
Causal cases set the op's unidirectional attribute. Exported by torch.onnx (the onnx
Python package is not in Debian); also writes, per n, random q, k, v and torch's output
(float32 raw files) so that the peer checks it computes attention before it is timed.

  attention_onnx.py OUT_DIR
"""

import sys

import torch
import torch.nn.functional as F

HEADS, HEAD_DIM, SIZES = 8, 64, (128, 512, 2048)


class MultiHeadAttention(torch.autograd.Function):
    """q, k, v [1, n, heads * dim] -> [1, n, heads * dim] (torch's result, for tracing)."""

    @staticmethod
    def forward(ctx, q, k, v, causal):
        n = q.shape[1]
        q, k, v = (t.view(n, HEADS, HEAD_DIM).transpose(0, 1) for t in (q, k, v))
        out = F._scaled_dot_product_attention(q, k, v, None, 0.0, causal)[0]
        return out.transpose(0, 1).reshape(1, n, HEADS * HEAD_DIM)

    @staticmethod
    def symbolic(g, q, k, v, causal):
        return g.op("com.microsoft::MultiHeadAttention", q, k, v, num_heads_i=HEADS,
                    unidirectional_i=int(causal))


class Attention(torch.nn.Module):
    def __init__(self, causal):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        return MultiHeadAttention.apply(q, k, v, self.causal)


def main(out_dir):
    generator = torch.Generator().manual_seed(5)
    for n in SIZES:
        q, k, v = (torch.rand(1, n, HEADS * HEAD_DIM, generator=generator) * 2 - 1 for _ in range(3))
        for name, t in (("q", q), ("k", k), ("v", v)):
            t.numpy().tofile(f"{out_dir}/n{n}_{name}.f32")
        for causal in (False, True):
            kind = "causal" if causal else "full"
            model = Attention(causal)
            model(q, k, v).detach().numpy().tofile(f"{out_dir}/n{n}_{kind}_torch.f32")
            torch.onnx.export(model, (q, k, v), f"{out_dir}/attention_n{n}_{kind}.onnx",
                              input_names=["q", "k", "v"], output_names=["out"], opset_version=17)


if __name__ == "__main__":
    main(sys.argv[1])
