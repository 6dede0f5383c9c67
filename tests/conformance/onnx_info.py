#!/usr/bin/python3
"""onnx_info.py - python3-onnx's view of ONNX files, one JSON line each.

    onnx_info.py MODEL.onnx...

For each path: {"path", "checker": true|false, "error": first line,
"nodes": main-graph node count, "nodes_all": with subgraphs, "op_types":
{op: count}, "opsets": {domain: version}, "ir_version"}.  The checker is
onnx.checker.check_model(path, full_check=True), as tests/oracle/onnx_check.py
runs it (by path, so models over 2 GB and external data work).  A model
whose default-domain opset is newer than this onnx knows (Debian's 1.12:
17) is checked by pt2onnx's own check instead (bin/check, or $PT2ONNX_CHECK),
which has onnx 1.23.1's schemas; "checker_tool" then says "check".
"""
import json
import os
import subprocess
import sys

import onnx

CHECK = os.environ.get("PT2ONNX_CHECK", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bin", "check"))


def own_check(path):
    """pt2onnx's check on path: (ok, first line of its complaint)."""
    p = subprocess.run([CHECK, path], capture_output=True, text=True)
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    return p.returncode == 0, (lines[0] if lines else "")[:300]


def count(graph, hist):
    n = 0
    for node in graph.node:
        n += 1
        key = (node.domain + "::" if node.domain and node.domain != "ai.onnx" else "") + node.op_type
        hist[key] = hist.get(key, 0) + 1
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                n += count(a.g, hist)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for g in a.graphs:
                    n += count(g, hist)
    return n


def info(path):
    r = {"path": path}
    try:
        m = onnx.load(path, load_external_data=False)
        hist = {}
        r["nodes"] = len(m.graph.node)
        r["nodes_all"] = count(m.graph, hist)
        r["op_types"] = hist
        r["opsets"] = {(o.domain or "ai.onnx"): o.version for o in m.opset_import}
        r["ir_version"] = m.ir_version
        r["inputs"] = [i.name for i in m.graph.input]
        r["outputs"] = [o.name for o in m.graph.output]
    except Exception as e:  # unreadable: the checker will say why too
        r["load_error"] = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
    if r.get("opsets", {}).get("ai.onnx", 0) > onnx.defs.onnx_opset_version():
        r["checker_tool"] = "check"
        r["checker"], err = own_check(path)
        if not r["checker"]:
            r["error"] = err
        return r
    try:
        onnx.checker.check_model(path, full_check=True)
        r["checker"] = True
    except Exception as e:
        r["checker"] = False
        lines = [l for l in str(e).strip().splitlines() if l.strip()]
        r["error"] = (lines[0] if lines else type(e).__name__)[:300]
    return r


def main(paths):
    for p in paths:
        print(json.dumps(info(p)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
