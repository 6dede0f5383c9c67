/*
 * gpu.h - the compute backends `trace` will run models on.
 *
 * One kernel interface, two backends: CPU (the reference, always built) and
 * CUDA (built when nvcc is found).  This is the stub the foundation ships:
 * it names the backends and answers which are present, so that tools can
 * already take `--device`; the kernels arrive with the `trace` stage.
 */
#ifndef PT2ONNX_GPU_H
#define PT2ONNX_GPU_H

enum gpu_backend {
	GPU_BACKEND_CPU = 0,
	GPU_BACKEND_CUDA,
	GPU_BACKEND_COUNT
};

/* "cpu", "cuda". */
const char *gpu_backend_name(enum gpu_backend b);
/* 1 when the backend was built in and a device is present. */
int gpu_backend_available(enum gpu_backend b);

#endif
