// ONNX Runtime (onnxruntime-node) as a peer of bench/peers/run_bert_int8: times the f32 and
// dynamic-int8 ONNX forms of BERT-base that bert_export.py wrote, at one thread count, and
// checks them: f32 against torch's output (max |difference|), int8 against ORT's f32
// (cosine per position, over the 768 features). Prints one JSON line per form, after a
// {"context": ...} line (ORT's version, threads, the fused op kinds ORT ran).
//
//   node bert_ort.js ORT_NODE_DIR EXPORT_DIR THREADS [SECONDS] [REPEATS]
//
// ORT_NODE_DIR holds node_modules/onnxruntime-node (run_bert_int8 installs it there).
// Sessions: intra-op THREADS, inter-op 1, sequential, graph optimization level "all"
// (ORT's own fusions: SkipLayerNormalization, Gelu, ...); the optimized graph is written
// beside the model so that the op kinds it ran can be listed.
'use strict';

const fs = require('fs');
const path = require('path');

const [ortDir, dir, threadsText, secondsText, repeatsText] = process.argv.slice(2);
if (!ortDir || !dir || !threadsText) {
  console.error('usage: node bert_ort.js ORT_NODE_DIR EXPORT_DIR THREADS [SECONDS] [REPEATS]');
  process.exit(2);
}
const {loadOrt, medianMs: medianMsOf} = require('./ort_support.js');
const {ort, version: ortVersion} = loadOrt(ortDir);
const threads = Number(threadsText);
const minSeconds = Number(secondsText || '1');
const minRepeats = Number(repeatsText || '15');
const HIDDEN = 768;

function readRaw(name, Type) {
  const bytes = fs.readFileSync(path.join(dir, name));
  return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

const medianMs = (run) => medianMsOf(run, minSeconds, minRepeats);

// Op kinds of interest in ORT's optimized graph (names appear as strings in the protobuf).
function fusedOps(file) {
  const text = fs.readFileSync(file).toString('latin1');
  return ['DynamicQuantizeMatMul', 'MatMulIntegerToFloat', 'MultiHeadAttention', 'SkipLayerNormalization',
          'LayerNormalization', 'Gelu', 'FusedMatMul', 'Gemm', 'MatMul']
      .filter((op) => new RegExp('[^A-Za-z]' + op + '[^A-Za-z]').test(text));
}

function cosines(a, b) {  // per row of HIDDEN
  const out = [];
  for (let r = 0; r * HIDDEN < a.length; ++r) {
    let ab = 0, aa = 0, bb = 0;
    for (let i = r * HIDDEN; i < (r + 1) * HIDDEN; ++i) {
      ab += a[i] * b[i];
      aa += a[i] * a[i];
      bb += b[i] * b[i];
    }
    out.push(ab / Math.sqrt(aa * bb));
  }
  return out;
}

async function form(name, ids) {
  const file = path.join(dir, `bert_${name}.onnx`);
  const optimized = path.join(dir, `bert_${name}.ort_optimized.onnx`);
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', optimizedModelFilePath: optimized, logSeverityLevel: 3,
  });
  const feeds = {input_ids: new ort.Tensor('int64', ids, [ids.length])};
  const output = (await session.run(feeds)).last_hidden_state.data;
  const ms = await medianMs(() => session.run(feeds));
  await session.release();
  return {output, ms, ops: fusedOps(optimized)};
}

async function main() {
  const ids = readRaw('input_ids.i64', BigInt64Array);
  const reference = readRaw('torch_f32.f32', Float32Array);
  const f32 = await form('f32', ids);
  let maxDiff = 0;
  for (let i = 0; i < reference.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(f32.output[i] - reference[i]));
  if (!(maxDiff < 1e-3)) {
    console.error(`bert_ort.js: ORT f32 differs from torch by ${maxDiff}: the export is wrong`);
    process.exit(1);
  }
  const int8 = await form('int8', ids);
  const cos = cosines(int8.output, f32.output);
  console.log(JSON.stringify({context: {onnxruntime: ortVersion, threads, f32_ops: f32.ops, int8_ops: int8.ops}}));
  console.log(JSON.stringify({name: 'ort_f32', threads, ms: f32.ms, max_abs_vs_torch_f32: maxDiff}));
  console.log(JSON.stringify({name: 'ort_int8', threads, ms: int8.ms, cosine_min: Math.min(...cos),
                              cosine_mean: cos.reduce((s, c) => s + c, 0) / cos.length}));
}

main().catch((e) => {
  console.error(`bert_ort.js: ${e.message || e}`);
  process.exit(1);
});
