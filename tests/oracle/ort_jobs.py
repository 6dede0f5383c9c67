"""ort_jobs.py - ONNX Runtime for the bats harnesses that run many models:
every job in one node process (tests/conformance/ort_runner.js, graph
optimizations off as tests/oracle/ort_run.js), instead of a node per model;
PT2ONNX_ORT_RUNNER=python: its Python twin, ort_runner.py, as the suite.

    run(jobs) -> answers
        jobs: [(model, outdir, [(input name, .npy path), ...])]; answers,
        in order: ort_runner.js's ({"ok": true, "outputs": [{"name",
        "path"}, ...]} with the outputs as OUTDIR/K.npy in the model's
        output order, or {"ok": false, "error": "..."}).
"""
import json
import os
import subprocess
import sys

SUITE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "conformance")


def run(jobs):
    env = dict(os.environ, ORT_OPT="disabled")
    env.setdefault("ORT_THREADS", "1")
    lines = "".join(json.dumps({"id": k, "model": m, "outdir": out,
                                "inputs": [{"name": n, "path": p} for n, p in ins]}) + "\n"
                    for k, (m, out, ins) in enumerate(jobs))
    argv = ([sys.executable, os.path.join(SUITE, "ort_runner.py")]
            if os.environ.get("PT2ONNX_ORT_RUNNER") == "python"
            else ["node", os.path.join(SUITE, "ort_runner.js")])
    p = subprocess.run(argv, input=lines, capture_output=True, text=True, env=env)
    answers = {}
    for line in p.stdout.splitlines():
        a = json.loads(line)
        answers[a["id"]] = a
    lost = {"ok": False, "error": f"no answer (node: {p.stderr.strip()[:300]})"}
    return [answers.get(k, lost) for k in range(len(jobs))]
