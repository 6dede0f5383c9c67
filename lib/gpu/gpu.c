/*
 * gpu.c - backend registry (see gpu.h).  CUDA is not built in yet: the
 * CUDA backend arrives with the `trace` stage, compiled when nvcc is found.
 */
#include "gpu.h"

const char *gpu_backend_name(enum gpu_backend b)
{
	switch (b) {
	case GPU_BACKEND_CPU:
		return "cpu";
	case GPU_BACKEND_CUDA:
		return "cuda";
	default:
		return "unknown";
	}
}

int gpu_backend_available(enum gpu_backend b)
{
	return b == GPU_BACKEND_CPU;
}
