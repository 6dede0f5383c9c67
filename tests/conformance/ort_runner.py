#!/usr/bin/env python3
"""ort_runner.py - ort_runner.js's protocol over Python's onnxruntime, for
machines with no node (the GPU machines: torch 2.11 and onnxruntime 1.30 in
their python3, no npm).  Chosen by PT2ONNX_ORT_RUNNER=python (evaluate.py's
OrtPool); the suite uses ort_runner.js everywhere else.

    python3 ort_runner.py [JOBS.jsonl]      (no file: jobs on stdin)

Jobs and answers are ort_runner.js's (see its header): one JSON line each,
inputs matched by name, else by position; outputs written as OUTDIR/K.npy.
"""
import json
import os
import sys
import time

import numpy as np
import onnxruntime as ort


def run_job(job):
    so = ort.SessionOptions()
    so.intra_op_num_threads = int(os.environ.get("ORT_THREADS", "1"))
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    if os.environ.get("ORT_OPT", "all") != "all":
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    t0 = time.monotonic()
    sess = ort.InferenceSession(job["model"], so, providers=["CPUExecutionProvider"])
    t1 = time.monotonic()
    names = [i.name for i in sess.get_inputs()]
    ins = job["inputs"]
    feeds, fed = {}, []
    if any(i["name"] in names for i in ins):
        for i in ins:
            if i["name"] in names:
                feeds[i["name"]] = np.load(i["path"])
                fed.append(i["name"])
    else:
        if len(names) > len(ins):
            raise ValueError(f"model wants {len(names)} inputs ({', '.join(names)}), job has {len(ins)}")
        for n, i in zip(names, ins):
            feeds[n] = np.load(i["path"])
            fed.append(f"{i['name']}->{n}")
    missing = [n for n in names if n not in feeds]
    if missing:
        raise ValueError(f"model input(s) not given: {', '.join(missing)}")
    res = sess.run(None, feeds)
    t2 = time.monotonic()
    os.makedirs(job["outdir"], exist_ok=True)
    outs = []
    for k, (o, v) in enumerate(zip(sess.get_outputs(), res)):
        p = os.path.join(job["outdir"], f"{k}.npy")
        v = np.asarray(v)
        np.save(p, v)
        outs.append({"name": o.name, "path": p, "type": str(v.dtype), "dims": list(v.shape)})
    return {"outputs": outs, "fed": fed, "load_s": t1 - t0, "run_s": t2 - t1}


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    for line in src:
        if not line.strip():
            continue
        try:
            job = json.loads(line)
        except ValueError as e:
            print(json.dumps({"ok": False, "error": f"bad job line: {e}"}), flush=True)
            continue
        try:
            ans = dict(id=job.get("id"), ok=True, **run_job(job))
        except Exception as e:  # one job's failure is its answer
            msg = next((s for s in str(e).splitlines() if s.strip()), type(e).__name__)
            ans = {"id": job.get("id"), "ok": False, "error": msg}
        print(json.dumps(ans), flush=True)


if __name__ == "__main__":
    main()
