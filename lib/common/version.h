/*
 * version.h - the one place the version lives (printed by every tool's
 * --version and written as the producer version into .onnx files).
 */
#ifndef PT2ONNX_VERSION_H
#define PT2ONNX_VERSION_H

#define PT2ONNX_VERSION "0.1.0"

/* The default-domain opsets the pipeline writes (lower, fold, emit, check
 * and the pt2onnx wrapper all use these): from 7 up to the newest opset
 * the tests' ONNX Runtime runs (1.30 loads 26 and refuses 27; a newer
 * runtime moves PT2ONNX_OPSET_MAX, README.md "Opsets").  The default is
 * torch 1.13's (README.md says why). */
#define PT2ONNX_OPSET_MIN 7
#define PT2ONNX_OPSET_MAX 26
#define PT2ONNX_OPSET_DEFAULT 14

/* a number macro as a string literal, for usage texts */
#define PT2ONNX_STR_(x) #x
#define PT2ONNX_STR(x) PT2ONNX_STR_(x)

#endif
