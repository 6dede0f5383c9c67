/*
 * version.h - the one place the version lives (printed by every tool's
 * --version and written as the producer version into .onnx files).
 */
#ifndef PT2ONNX_VERSION_H
#define PT2ONNX_VERSION_H

#define PT2ONNX_VERSION "0.1.0"

#endif
