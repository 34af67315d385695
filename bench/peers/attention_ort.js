// ONNX Runtime (onnxruntime-node) as a peer of bench/attention_bench.cpp, for
// bench/peers/run_attention: times attention_onnx.py's MultiHeadAttention graphs on one
// thread (intra-op 1, inter-op 1, sequential, graph optimization "all") after checking
// each output against torch's (max |difference| < 1e-4). Prints {"context": ...}, then
// one JSON line per case, {"name": ..., "ms": ...}, named as focal's cases; a case ORT
// refuses (e.g. a build without unidirectional attention) is a line with "error".
//
//   node attention_ort.js ORT_NODE_DIR EXPORT_DIR [SECONDS] [REPEATS] [FILTER]
'use strict';

const fs = require('fs');
const path = require('path');
const {loadOrt, medianMs} = require('./ort_support.js');

const [ortDir, dir, secondsText, repeatsText, filterText] = process.argv.slice(2);
if (!ortDir || !dir) {
  console.error('usage: node attention_ort.js ORT_NODE_DIR EXPORT_DIR [SECONDS] [REPEATS] [FILTER]');
  process.exit(2);
}
const {ort, version} = loadOrt(ortDir);
const minSeconds = Number(secondsText || '1');
const minRepeats = Number(repeatsText || '15');
const filter = new RegExp(filterText || '.');
const WIDTH = 8 * 64;  // heads x head_dim

function readF32(name) {
  const bytes = fs.readFileSync(path.join(dir, name));
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

async function timeCase(n, kind) {
  const session = await ort.InferenceSession.create(path.join(dir, `attention_n${n}_${kind}.onnx`), {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', logSeverityLevel: 3,
  });
  const feeds = {};
  for (const name of ['q', 'k', 'v']) feeds[name] = new ort.Tensor('float32', readF32(`n${n}_${name}.f32`), [1, n, WIDTH]);
  const out = (await session.run(feeds)).out.data;
  const want = readF32(`n${n}_${kind}_torch.f32`);
  let maxDiff = 0;
  for (let i = 0; i < want.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(out[i] - want[i]));
  if (!(maxDiff < 1e-4)) throw new Error(`output differs from torch's by ${maxDiff}`);
  const ms = await medianMs(() => session.run(feeds), minSeconds, minRepeats);
  await session.release();
  return {ms, max_abs_vs_torch: maxDiff};
}

async function main() {
  console.log(JSON.stringify({context: {onnxruntime: version, threads: 1}}));
  for (const n of [128, 512, 2048]) {
    for (const kind of ['causal', 'full']) {
      const name = `attention/prefill/b1_h8_d64_n${n}/${kind}`;
      if (!filter.test(name)) continue;
      try {
        console.log(JSON.stringify({name, ...(await timeCase(n, kind))}));
      } catch (e) {
        console.log(JSON.stringify({name, error: String(e.message || e).split('\n')[0]}));
      }
    }
  }
}

main().catch((e) => {
  console.error(`attention_ort.js: ${e.message || e}`);
  process.exit(1);
});
