#!/usr/bin/env node
// ort_runner.js - ONNX Runtime (npm onnxruntime-node) for the conformance
// suite: runs many models in one node process.
//
//   node ort_runner.js [JOBS.jsonl]      (no file: jobs are read from stdin)
//
// A job is one JSON object per line:
//   {"id": "...", "model": "m.onnx",
//    "inputs": [{"name": "x", "path": "in1/x.npy"}, ...],
//    "outdir": "dir"}
// and for each job, in order, one JSON line is written to stdout:
//   {"id": ..., "ok": true, "outputs": [{"name", "path", "type", "dims"}],
//    "load_s": .., "run_s": ..}          or {"id": ..., "ok": false, "error": "..."}
// Outputs are written as OUTDIR/<index>.npy in the model's output order.
// Inputs are matched to the model's inputs by name; when none of the names
// match, by position. Inputs the model does not have are not fed (an exporter
// may drop unused inputs); the list of what was fed is part of the answer.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

let ort;
try {
  ort = require(path.join(__dirname, '..', 'oracle', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  ort = require('onnxruntime-node');
}

const npy = require(path.join(__dirname, '..', 'oracle', 'npy.js'));
const readNpy = (file) => npy.readNpy(file, ort);
const writeNpy = npy.writeNpy;

// --- jobs ------------------------------------------------------------------
const sessOpts = {
  intraOpNumThreads: Number(process.env.ORT_THREADS || 1),
  interOpNumThreads: 1,
  logSeverityLevel: 3,
  graphOptimizationLevel: process.env.ORT_OPT || 'all',
};

async function runJob(job) {
  const t0 = process.hrtime.bigint();
  const sess = await ort.InferenceSession.create(job.model, sessOpts);
  const t1 = process.hrtime.bigint();
  const names = sess.inputNames;
  const byName = job.inputs.every(i => names.includes(i.name)) ||
    job.inputs.some(i => names.includes(i.name));
  const feeds = {};
  const fed = [];
  if (byName) {
    for (const i of job.inputs) if (names.includes(i.name)) { feeds[i.name] = readNpy(i.path); fed.push(i.name); }
  } else {
    if (names.length > job.inputs.length)
      throw new Error(`model wants ${names.length} inputs (${names.join(', ')}), job has ${job.inputs.length}`);
    names.forEach((n, k) => { feeds[n] = readNpy(job.inputs[k].path); fed.push(`${job.inputs[k].name}->${n}`); });
  }
  const missing = names.filter(n => !(n in feeds));
  if (missing.length) throw new Error(`model input(s) not given: ${missing.join(', ')}`);
  const res = await sess.run(feeds);
  const t2 = process.hrtime.bigint();
  fs.mkdirSync(job.outdir, { recursive: true });
  const outputs = sess.outputNames.map((n, k) => {
    const t = res[n];
    const p = path.join(job.outdir, `${k}.npy`);
    writeNpy(p, t);
    return { name: n, path: p, type: t.type, dims: t.dims.map(Number) };
  });
  if (sess.release) await sess.release();
  return { outputs, fed, load_s: Number(t1 - t0) / 1e9, run_s: Number(t2 - t1) / 1e9 };
}

async function main() {
  const input = process.argv[2] ? fs.createReadStream(process.argv[2]) : process.stdin;
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let job;
    try { job = JSON.parse(line); } catch (e) {
      process.stdout.write(JSON.stringify({ ok: false, error: `bad job line: ${e.message}` }) + '\n');
      continue;
    }
    let out;
    try {
      out = Object.assign({ id: job.id, ok: true }, await runJob(job));
    } catch (e) {
      const msg = String(e && e.message ? e.message : e).split('\n').filter(s => s.trim())[0] || 'error';
      out = { id: job.id, ok: false, error: msg };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
}
main().catch(e => { process.stderr.write(`ort_runner: ${e.stack || e}\n`); process.exit(1); });
