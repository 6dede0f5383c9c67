/*
 * gpu.c - backend registry and backend-independent tensor handling
 * (see gpu.h).  Placeholder until the CPU backend lands.
 */
#include "gpu.h"

const char *gpu_backend_name(enum gpu_backend_id b)
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

int gpu_backend_available(enum gpu_backend_id b)
{
	return b == GPU_BACKEND_CPU;
}
