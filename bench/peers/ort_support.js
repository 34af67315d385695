// What the ONNX Runtime peers (bert_ort.js, attention_ort.js) share: loading
// onnxruntime-node from the directory the run_* scripts install it into, and the median
// wall time of a call.
'use strict';

const path = require('path');

// {ort, version} of ORT_NODE_DIR/node_modules/onnxruntime-node.
function loadOrt(ortDir) {
  const root = path.join(ortDir, 'node_modules', 'onnxruntime-node');
  return {ort: require(root), version: require(path.join(root, 'package.json')).version};
}

// Median ms of run(): a warm-up of >= 3 calls and >= 0.1 s, then >= minRepeats calls and
// >= minSeconds (models_torch.py's median_ms).
async function medianMs(run, minSeconds, minRepeats) {
  let start = process.hrtime.bigint();
  for (let calls = 0; calls < 3 || Number(process.hrtime.bigint() - start) < 1e8; ++calls) await run();
  const times = [];
  start = process.hrtime.bigint();
  while (times.length < minRepeats || Number(process.hrtime.bigint() - start) < minSeconds * 1e9) {
    const t0 = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  return times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

module.exports = {loadOrt, medianMs};
