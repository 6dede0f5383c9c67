#!/usr/bin/env node
// ort_run.js - the runtime oracle: runs an ONNX model in ONNX Runtime (npm
// onnxruntime-node, CPU) and writes its outputs as .npy files.
//
//   node ort_run.js MODEL.onnx OUTDIR [NAME=INPUT.npy ...]
//
// Each graph output is written to OUTDIR/NAME.npy ('/' and other unsafe
// characters in NAME become '_').  Inputs and outputs are .npy files of
// float32, float64, int64, int32, int16, int8, uint16, bool or uint8, read
// and written here (a small parser for format versions 1-3, C order only).  A model that ORT
// refuses to load or run: a one-line error on stderr, exit status 1.
// Usage errors: exit status 2.
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

const DTYPES = {
	'<f4': ['float32', Float32Array, 4],
	'<f8': ['float64', Float64Array, 8],
	'<i8': ['int64', BigInt64Array, 8],
	'<i4': ['int32', Int32Array, 4],
	'<i2': ['int16', Int16Array, 2],
	'|i1': ['int8', Int8Array, 1],
	'<u2': ['uint16', Uint16Array, 2],
	'|b1': ['bool', Uint8Array, 1],
	'|u1': ['uint8', Uint8Array, 1],
};

function die(code, msg) {
	process.stderr.write(`ort_run: ${msg}\n`);
	process.exit(code);
}

function readNpy(file) {
	const buf = fs.readFileSync(file);
	if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
		die(2, `${file}: not a .npy file`);
	const major = buf[6];
	let hlen, hstart;
	if (major === 1) {
		hlen = buf.readUInt16LE(8);
		hstart = 10;
	} else {
		hlen = buf.readUInt32LE(8);
		hstart = 12;
	}
	const header = buf.toString('latin1', hstart, hstart + hlen);
	const descr = /'descr':\s*'([^']+)'/.exec(header);
	const fortran = /'fortran_order':\s*(True|False)/.exec(header);
	const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
	if (!descr || !fortran || !shape)
		die(2, `${file}: malformed .npy header`);
	if (fortran[1] === 'True')
		die(2, `${file}: Fortran order is not supported`);
	const dt = DTYPES[descr[1]];
	if (!dt)
		die(2, `${file}: dtype ${descr[1]} is not supported`);
	const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s)
		.map(Number);
	const numel = dims.reduce((a, b) => a * b, 1);
	const start = hstart + hlen;
	const bytes = buf.subarray(start, start + numel * dt[2]);
	if (bytes.length !== numel * dt[2])
		die(2, `${file}: data is shorter than its shape`);
	const copy = new ArrayBuffer(bytes.length);
	new Uint8Array(copy).set(bytes);
	return new ort.Tensor(dt[0], new dt[1](copy), dims);
}

function writeNpy(file, tensor) {
	const entry = Object.entries(DTYPES).find(([, v]) => v[0] === tensor.type);
	if (!entry)
		die(1, `output type ${tensor.type} cannot be written as .npy`);
	const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)`
		: `(${tensor.dims.join(', ')})`;
	let header = `{'descr': '${entry[0]}', 'fortran_order': False, ` +
		`'shape': ${shape}, }`;
	const total = 10 + header.length + 1;
	header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
	const head = Buffer.alloc(10);
	head.write('\x93NUMPY', 0, 'latin1');
	head[6] = 1;
	head[7] = 0;
	head.writeUInt16LE(header.length, 8);
	const data = tensor.data;
	const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
	fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
		body]));
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
		feeds[s.slice(0, eq)] = readNpy(s.slice(eq + 1));
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
	for (const name of session.outputNames)
		writeNpy(path.join(outdir, name.replace(/[^A-Za-z0-9_.-]/g, '_') +
			'.npy'), results[name]);
}

main(process.argv.slice(2));
