// npy.js - .npy files as ONNX Runtime tensors, for the two runtime oracles
// (tests/oracle/ort_run.js: one model; tests/conformance/ort_runner.js: many
// models in one process).  Format versions 1-3, C order only; errors are
// thrown as Error with the file's name in the message.
'use strict';
const fs = require('fs');

// .npy descr -> [ORT type, typed array]
const NPY_TYPES = {
	'<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
	'<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
	'<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
	'|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
	'<f2': ['float16', Uint16Array], '<u2': ['uint16', Uint16Array],
	'<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array],
};
const ORT_TO_NPY = {};
for (const [k, v] of Object.entries(NPY_TYPES))
	if (!(v[0] in ORT_TO_NPY))
		ORT_TO_NPY[v[0]] = k;

// readNpy(file, ort) -> ort.Tensor
function readNpy(file, ort) {
	const buf = fs.readFileSync(file);
	if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
		throw new Error(`${file}: not a .npy file`);
	const major = buf[6];
	const hstart = major === 1 ? 10 : 12;
	if (buf.length < hstart)
		throw new Error(`${file}: malformed .npy header`);
	const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
	const header = buf.toString('latin1', hstart, hstart + hlen);
	const descr = /'descr':\s*'([^']+)'/.exec(header);
	const fortran = /'fortran_order':\s*(True|False)/.exec(header);
	const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
	if (!descr || !fortran || !shape)
		throw new Error(`${file}: malformed .npy header`);
	if (fortran[1] === 'True')
		throw new Error(`${file}: Fortran order is not supported`);
	const t = NPY_TYPES[descr[1]];
	if (!t)
		throw new Error(`${file}: dtype ${descr[1]} is not supported`);
	const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s)
		.map(Number);
	const numel = dims.reduce((a, b) => a * b, 1);
	const start = hstart + hlen;
	const nbytes = numel * t[1].BYTES_PER_ELEMENT;
	const bytes = buf.subarray(start, start + nbytes);
	if (bytes.length !== nbytes)
		throw new Error(`${file}: data is shorter than its shape`);
	const copy = new Uint8Array(nbytes);
	copy.set(bytes);
	return new ort.Tensor(t[0], new t[1](copy.buffer, 0, numel), dims);
}

// writeNpy(file, tensor): an ORT output tensor as a version 1 .npy file
function writeNpy(file, tensor) {
	const descr = ORT_TO_NPY[tensor.type];
	if (!descr)
		throw new Error(`output type ${tensor.type} cannot be written as .npy`);
	const dims = tensor.dims.map(Number);
	const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
	let header = `{'descr': '${descr}', 'fortran_order': False, ` +
		`'shape': ${shape}, }`;
	const total = 10 + header.length + 1;
	header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
	const head = Buffer.alloc(10);
	head.write('\x93NUMPY', 0, 'latin1');
	head[6] = 1;
	head[7] = 0;
	head.writeUInt16LE(header.length, 8);
	const d = tensor.data;
	const body = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
	fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
		body]));
}

module.exports = { readNpy, writeNpy };
