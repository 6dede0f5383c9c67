#!/usr/bin/python3
"""kernels.py - times the CPU backend's kernels (lib/gpu/cpu*.c) on the layer
shapes of torchvision's resnet50 (batch 1, 224x224) against torch 1.13's own
CPU kernels at the same thread count, and prints one table.

    /usr/bin/python3 bench/kernels.py [--threads 2] [--unit build/tests/test_gpu_cpu]

Our side is the unit test binary's test_bench (PT2ONNX_GPU_BENCH=1): best of
5 runs after a warm-up, the same protocol as below for torch.
"""
import argparse
import os
import re
import subprocess
import time

import torch
import torch.nn.functional as F

CONVS = [  # name, C, O, H (=W), kernel, stride, pad: as in test_gpu_cpu.c
    ("conv1_7x7s2", 3, 64, 224, 7, 2, 3),
    ("l1_1x1_64_64", 64, 64, 56, 1, 1, 0),
    ("l1_3x3_64", 64, 64, 56, 3, 1, 1),
    ("l1_1x1_64_256", 64, 256, 56, 1, 1, 0),
    ("l1_1x1_256_64", 256, 64, 56, 1, 1, 0),
    ("l2_3x3s2_128", 128, 128, 56, 3, 2, 1),
    ("l2_3x3_128", 128, 128, 28, 3, 1, 1),
    ("l2_1x1_512_128", 512, 128, 28, 1, 1, 0),
    ("l2_ds_1x1s2_256_512", 256, 512, 56, 1, 2, 0),
    ("l3_3x3_256", 256, 256, 14, 3, 1, 1),
    ("l3_1x1_1024_256", 1024, 256, 14, 1, 1, 0),
    ("l3_1x1_256_1024", 256, 1024, 14, 1, 1, 0),
    ("l4_3x3_512", 512, 512, 7, 3, 1, 1),
    ("l4_1x1_2048_512", 2048, 512, 7, 1, 1, 0),
    ("l4_1x1_512_2048", 512, 2048, 7, 1, 1, 0),
]


def best_ms(fn):
    fn()
    best = 1e30
    for _ in range(5):
        t0 = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best


def torch_times():
    out = {}
    with torch.no_grad():
        for name, c, o, hw, k, s, p in CONVS:
            x = torch.rand(1, c, hw, hw) - 0.5
            w = torch.rand(o, c, k, k) - 0.5
            b = torch.rand(o) - 0.5
            out["conv " + name] = best_ms(lambda: F.conv2d(x, w, b, s, p))
        x = torch.rand(1, 64, 112, 112) - 0.5
        m, v = torch.rand(64), torch.rand(64)
        g, bb = torch.rand(64), torch.rand(64)
        out["maxpool_3x3s2_112"] = best_ms(lambda: F.max_pool2d(x, 3, 2, 1))
        out["batch_norm_64x112"] = best_ms(
            lambda: F.batch_norm(x, m, v, g, bb, False, 0.1, 1e-5))
        out["relu_64x112"] = best_ms(lambda: F.relu(x))
        y = torch.rand(1, 64, 112, 112)
        out["add_64x112"] = best_ms(lambda: x + y)
        a = torch.rand(1, 2048)
        w = torch.rand(1000, 2048)
        bl = torch.rand(1000)
        out["linear_2048_1000"] = best_ms(lambda: F.linear(a, w, bl))
    return out


def ours(unit, threads):
    env = dict(os.environ, PT2ONNX_GPU_BENCH="1", PT2ONNX_THREADS=str(threads))
    res = subprocess.run([unit, "test_bench"], env=env, capture_output=True,
                         text=True, check=True)
    out = {}
    for line in res.stdout.splitlines():
        m = re.match(r"bench (.*) ([0-9.]+) ms$", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--unit", default="build/tests/test_gpu_cpu")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    t = torch_times()
    o = ours(args.unit, args.threads)
    print(f"{'kernel':32s} {'pt2onnx ms':>10s} {'torch ms':>10s} {'ratio':>6s}")
    tot_o = tot_t = 0.0
    for k, tv in t.items():
        ov = o.get(k)
        if ov is None:
            print(f"{k:32s} {'-':>10s} {tv:10.3f}")
            continue
        tot_o += ov
        tot_t += tv
        print(f"{k:32s} {ov:10.3f} {tv:10.3f} {ov / tv:6.2f}")
    print(f"{'total':32s} {tot_o:10.3f} {tot_t:10.3f} {tot_o / tot_t:6.2f}")


if __name__ == "__main__":
    main()
