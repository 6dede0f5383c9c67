#!/usr/bin/env node
// ort_run.js - the runtime oracle: runs an ONNX model in ONNX Runtime (npm
// onnxruntime-node, CPU) and writes its outputs as .npy files.
//
//   node ort_run.js MODEL.onnx OUTDIR [NAME=INPUT.npy ...]
//
// Each graph output is written to OUTDIR/NAME.npy ('/' and other unsafe
// characters in NAME become '_').  Inputs and outputs are .npy files of
// float16/32/64, int8-64, uint8-64 or bool, read
// and written by npy.js (format versions 1-3, C order only).  A model that ORT
// refuses to load or run: a one-line error on stderr, exit status 1.
// Usage errors: exit status 2.
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
const { readNpy, writeNpy } = require(path.join(__dirname, 'npy.js'));

function die(code, msg) {
	process.stderr.write(`ort_run: ${msg}\n`);
	process.exit(code);
}

async function main(argv) {
	if (argv.length < 2)
		die(2, 'usage: ort_run.js MODEL.onnx OUTDIR [NAME=INPUT.npy ...]');
	const [model, outdir, ...specs] = argv;
	const feeds = {};
	for (const s of specs) {
		const eq = s.lastIndexOf('=');
		if (eq <= 0)
			die(2, `'${s}': expected NAME=FILE.npy`);
		try {
			feeds[s.slice(0, eq)] = readNpy(s.slice(eq + 1), ort);
		} catch (e) {
			die(2, e.message);
		}
	}
	let session, results;
	try {
		session = await ort.InferenceSession.create(model,
			{ graphOptimizationLevel: 'disabled' });
		results = await session.run(feeds);
	} catch (e) {
		die(1, `${model}: ${String(e.message || e).split('\n')[0]}`);
	}
	fs.mkdirSync(outdir, { recursive: true });
	for (const name of session.outputNames) {
		try {
			writeNpy(path.join(outdir, name.replace(/[^A-Za-z0-9_.-]/g, '_') +
				'.npy'), results[name]);
		} catch (e) {
			die(1, e.message);
		}
	}
}

main(process.argv.slice(2));
