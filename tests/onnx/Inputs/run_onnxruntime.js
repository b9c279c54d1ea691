// Runs an ONNX model in ONNX Runtime (npm onnxruntime-node, CPU), the
// yardstick of the model tests and benchmarks.
//
//   node run_onnxruntime.js MODEL.onnx INPUT.f32 D0,D1,... OUTPUT.f32 [THREADS [RUNS]]
//
// INPUT.f32 holds the model's one input as raw little-endian float32 of
// the given shape; OUTPUT.f32 receives its first output the same way.
// With RUNS > 0 the model also runs RUNS more times and the script prints
// one JSON line: {"seconds": [each run's wall time]}.
// ONNX Runtime is looked for in $BEF_ONNXRUNTIME_DIR, then
// /opt/onnxruntime-node (scripts/install-deps.sh installs it there).
'use strict';
const fs = require('fs');
const path = require('path');

function loadRuntime() {
  const roots = [process.env.BEF_ONNXRUNTIME_DIR, '/opt/onnxruntime-node'].filter(Boolean);
  for (const root of roots) {
    const candidate = path.join(root, 'node_modules', 'onnxruntime-node');
    if (fs.existsSync(candidate)) return require(candidate);
  }
  throw new Error('onnxruntime-node not found in ' + roots.join(', ') +
                  ' (run scripts/install-deps.sh)');
}

async function main() {
  const [model, inputPath, dimsText, outputPath, threadsText, runsText] = process.argv.slice(2);
  const ort = loadRuntime();
  const threads = Number(threadsText || 1);
  const runs = Number(runsText || 0);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const dims = dimsText.split(',').map(Number);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, dims)};
  const results = await session.run(feeds);
  const output = results[session.outputNames[0]].data;
  fs.writeFileSync(outputPath, Buffer.from(output.buffer, output.byteOffset, output.byteLength));
  if (runs > 0) {
    const seconds = [];
    for (let i = 0; i < runs; ++i) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
    console.log(JSON.stringify({seconds}));
  }
}

main().catch((error) => {
  console.error('run_onnxruntime: ' + (error && error.message ? error.message : error));
  process.exit(1);
});
