"""ONNX forms of models_torch.py's BERT for ONNX Runtime, exported by torch.onnx (no onnx
Python package needed): f32, and dynamic int8 as ONNX Runtime's own quantizer
(onnxruntime.quantization.quantize_dynamic, per_channel=True) leaves a BERT after its graph
optimizations, written directly because that Python tool is not in Debian:
  every Linear  com.microsoft DynamicQuantizeMatMul(x [S, K] f32, B [K, N] int8,
                B_scale [N] (per output channel, symmetric: amax / 127), B_zero_point [N]
                zeros, bias [N]): x quantized per tensor to uint8 at run time, integer
                products, f32 out
  attention     com.microsoft MultiHeadAttention(q, k, v [1, S, d], num_heads) in f32, in
                both forms (ONNX Runtime's fused CPU attention)
LayerNorm is ONNX LayerNormalization (opset 17), GELU exported as erf; ONNX Runtime fuses
these (and residual adds into SkipLayerNormalization) itself at graph optimization level
"all". Input input_ids int64 [S], output last_hidden_state [S, d].
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 17


class MultiHeadAttention(torch.autograd.Function):
    """q, k, v [S, d] -> [S, d]: softmax(q k^T / sqrt(d / heads)) v per head; exported as
    com.microsoft MultiHeadAttention on [1, S, d]."""

    @staticmethod
    def forward(ctx, q, k, v, heads):
        s, d = q.shape
        q, k, v = (t.view(s, heads, d // heads).transpose(0, 1) for t in (q, k, v))
        return F._scaled_dot_product_attention(q, k, v, None, 0.0, False)[0].transpose(0, 1).reshape(s, d)

    @staticmethod
    def symbolic(g, q, k, v, heads):
        zero = g.op("Constant", value_t=torch.tensor([0], dtype=torch.int64))
        q, k, v = (g.op("Unsqueeze", t, zero) for t in (q, k, v))
        out = g.op("com.microsoft::MultiHeadAttention", q, k, v, num_heads_i=heads)
        return g.op("Squeeze", out, zero)


class DynamicQuantizeMatMul(torch.autograd.Function):
    """x [S, K] times int8 weights: in torch (tracing only) the dequantized product, in
    ONNX com.microsoft DynamicQuantizeMatMul."""

    @staticmethod
    def forward(ctx, x, q_kn, scale, zero_point, bias):
        return x @ (q_kn.float() * scale) + bias

    @staticmethod
    def symbolic(g, x, q_kn, scale, zero_point, bias):
        return g.op("com.microsoft::DynamicQuantizeMatMul", x, q_kn, scale, zero_point, bias)


class Int8Linear(nn.Module):
    """nn.Linear's weights [N, K] as int8 with one symmetric scale per output channel."""

    def __init__(self, linear):
        super().__init__()
        w = linear.weight.detach()
        scale = (w.abs().amax(dim=1) / 127.0).clamp_min(1e-12)  # [N]
        q = torch.clamp(torch.round(w / scale[:, None]), -127, 127).to(torch.int8)
        self.register_buffer("q_kn", q.t().contiguous())  # [K, N]
        self.register_buffer("scale", scale.float())
        self.register_buffer("zero_point", torch.zeros(w.shape[0], dtype=torch.int8))
        self.register_buffer("bias", linear.bias.detach().clone())

    def forward(self, x):
        return DynamicQuantizeMatMul.apply(x, self.q_kn, self.scale, self.zero_point, self.bias)


class OnnxBert(nn.Module):
    """models_torch.py's module_sdpa BERT on the same weights; `int8`: every Linear as an
    Int8Linear."""

    def __init__(self, embeddings, layers, int8):
        super().__init__()
        self.embeddings = embeddings
        self.layers = layers
        wrap = Int8Linear if int8 else (lambda linear: linear)
        self.linears = nn.ModuleList(
            nn.ModuleList(wrap(getattr(layer, name)) for name in ("qkv", "out", "ffn_in", "ffn_out"))
            for layer in layers)

    def forward(self, ids):  # ids [S] -> [S, d]
        x = self.embeddings(ids)
        for layer, (qkv, out, ffn_in, ffn_out) in zip(self.layers, self.linears):
            q, k, v = qkv(x).chunk(3, dim=1)
            a = MultiHeadAttention.apply(q, k, v, layer.heads)
            x = layer.norm1(x + out(a))
            x = layer.norm2(x + ffn_out(F.gelu(ffn_in(x))))
        return x


def export(embeddings, layers, ids, int8, path):
    """Writes the ONNX form to `path`; returns its torch output on `ids` ([S, d])."""
    model = OnnxBert(embeddings, layers, int8).eval()
    with torch.no_grad():
        torch.onnx.export(model, (ids,), path, input_names=["input_ids"],
                          output_names=["last_hidden_state"], opset_version=OPSET,
                          custom_opsets={"com.microsoft": 1}, keep_initializers_as_inputs=False)
        return model(ids)
