#!/usr/bin/python3
"""report.py - renders docs/conformance.md from tests/conformance/results.json
and tests/conformance/script_ops.json.

    /usr/bin/python3 tests/conformance/report.py [--results FILE]
        [--script-ops FILE] [-o docs/conformance.md]

Everything in the page comes from the results file (run.py --update writes
it) and script_ops.py's file (`script_ops.py --json`: the section on
`script`'s op sets and weights against torch's, left out when the file is
absent); nothing is typed in by hand.
"""
import argparse
import collections
import re
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (FAMILY_OPSETS, FAMILY_PATHS, HERE, ONNX_CHECKER_MAX, OPSETS, PATHS, RESULTS, ROOT,  # noqa: E402
                    TORCH_OPSETS, read_json)  # noqa: E402
import torchsuite  # noqa: E402

SCRIPT_OPS = os.path.join(HERE, "script_ops.json")

FAMILIES = ("classification", "detection", "segmentation", "transformer", "rnn", "control_flow",
            "reference", "op", "torch2", "pt2", "opinfo")
# families with a section of their own, left out of the "all" rows, the
# model table and the per-model failure lists (their own measure: opinfo,
# issue 14's OpInfo samples, traced at opset 13 only)
OWN_SECTION = ("opinfo",)
# families with no torch.onnx.export baseline: archives of a torch that is
# not on this machine (torch2: saved by torch 2.11); their torch cells are –
NO_TORCH_EXPORT = ("torch2", "pt2")
PATH_LABEL = {"trace": "trace", "script:traced": "script (traced .pt)", "script:scripted": "script (scripted .pt)",
              "pt2": "unpt2 (exported .pt2)"}
ARCH_OF = {"trace": "traced", "script:traced": "traced", "script:scripted": "scripted", "pt2": "exported"}


def cell_pt(r):
    if not r:
        return "·"
    return {"pass": "✓", "fail": "✗", "n/a": "–"}.get(r.get("status"), "?")


def torch_cell(r):
    """✓ exported, checker ok, outputs match; ≠ exported but wrong or
    rejected by the checker; ✗ torch.onnx.export failed."""
    if not r:
        return "–"
    if not r.get("ok"):
        return "✗"
    return "✓" if r.get("pass") else "≠"


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ").replace("`", "'")


def ratio(a, b):
    if not a or not b:
        return ""
    return f"{a / b:.2g}x"


def fmt_mb(b):
    if not b:
        return ""
    return f"{b / 1e6:.1f}" if b < 1e8 else f"{b / 1e6:.0f}"


def script_ops_section(L, so):
    """`script` against torch per archive: tests/conformance/script_ops.py's
    verdicts (agree, differ, fail to read), per family, and every archive
    that does not agree with what differs."""
    if not so or not so.get("models"):
        return
    w = L.append
    meta, models = so.get("meta", {}), so["models"]
    arch = ("traced", "scripted")
    w("## script: op sets and weights against torch")
    w("")
    w(f"From `tests/conformance/script_ops.json` (`tests/conformance/script_ops.py`, run {meta.get('ran_at', '?')} "
      f"with `{meta.get('script', 'bin/script')}`, torch {meta.get('torch', '?')}). For every archive: `script -S` "
      "reads it; the set of aten ops in its graph equals the one in torch's graph after the passes "
      "torch.onnx.export runs before lowering (freezing with the parameters kept, inlining, constant "
      "propagation; the nodes the outputs depend on); the weights it refers to equal, in number, elements and "
      "bytes, the parameters and buffers torch's graph reads. The comparison rules (the few differences that "
      "are not bugs) are in script_ops.py's top comment.")
    w("")
    w("| family | archives | agree | differ | fail to read | torch failed |")
    w("|---|---|---|---|---|---|")
    for f in FAMILIES + ("all",):
        c = collections.Counter()
        for n, m in models.items():
            if f != "all" and m.get("family") != f:
                continue
            for a in arch:
                if a in m:
                    c[m[a].get("status")] += 1
                    c["n"] += 1
        if not c["n"]:
            continue
        b = "**" if f == "all" else ""
        w(f"| {b}{f}{b} | {b}{c['n']}{b} | {b}{c['agree']}{b} | {b}{c['differ']}{b} | {b}{c['fail']}{b} | "
          f"{b}{c['torch failed']}{b} |")
    w("")
    differ, fail = [], collections.OrderedDict()
    for n in sorted(models):
        for a in arch:
            r = models[n].get(a)
            if not r:
                continue
            if r.get("status") == "differ":
                parts = []
                if r.get("only_script"):
                    parts.append("only in script: " + ", ".join(f"`{k}`" for k in r["only_script"]))
                if r.get("only_torch"):
                    parts.append("only in torch: " + ", ".join(f"`{k}`" for k in r["only_torch"]))
                ws = r.get("weights", {})
                s, t = ws.get("script", {}), ws.get("torch", {})
                if (s.get("n"), s.get("numel"), s.get("bytes")) != (t.get("n"), t.get("numel"), t.get("bytes")):
                    parts.append(f"weights: script {s.get('n')} ({s.get('numel')} elements), torch {t.get('n')} "
                                 f"({t.get('numel')} elements)")
                differ.append(f"- `{n}` {a}: " + "; ".join(parts))
            elif r.get("status") in ("fail", "torch failed"):
                e = ("torch: " if r["status"] == "torch failed" else "") + r.get("error", "failed")
                e = re.sub(r"WORK/models/[^/ ]+/(traced|scripted)\.pt", "MODEL.pt", e)
                fail.setdefault(re.sub(r"___torch_mangle_\d+", "___torch_mangle_N", e), []).append(f"{n} {a}")
    if differ:
        w(f"Archives that read but differ ({len(differ)}):")
        w("")
        L.extend(esc_line(x) for x in differ)
        w("")
    if fail:
        w(f"Archives that do not read ({sum(len(v) for v in fail.values())}), by error:")
        w("")
        w("<details><summary>" + f"{len(fail)} errors" + "</summary>")
        w("")
        for e, where in sorted(fail.items(), key=lambda kv: -len(kv[1])):
            w(f"- {len(where)}× {esc(e)}: " + ", ".join(where[:12]) + (" ..." if len(where) > 12 else ""))
        w("")
        w("</details>")
        w("")


def newer_opsets_section(L, models):
    """Every (model, path) that passes at 17 and not at a newer opset: the
    done-when of issue 13 is that there is none to explain."""
    w = L.append
    newer = [v for v in OPSETS if v > 17]
    if not newer:
        return
    w("## The newer opsets against 17")
    w("")
    w("pt2onnx (model, path) pairs that pass at opset 17 and fail at a newer one, and the reverse, per opset.")
    w("")
    w("| opset | pass at 17, fail here | fail at 17, pass here | not run here |")
    w("|---|---|---|---|")
    worse = []
    for v in newer:
        lost = gained = notrun = 0
        for n, m in models.items():
            for p, per in m.get("pt2onnx", {}).items():
                a, b = per.get("17"), per.get(str(v))
                if not a:
                    continue
                if not b:
                    notrun += a.get("status") == "pass"
                    continue
                if a.get("status") == "pass" and b.get("status") != "pass":
                    lost += 1
                    worse.append(f"- `{n}` {PATH_LABEL[p]} opset {v}: {esc(b.get('error', b.get('status')))}")
                elif b.get("status") == "pass" and a.get("status") != "pass":
                    gained += 1
        w(f"| {v} | {lost} | {gained} | {notrun} |")
    w("")
    if worse:
        L.extend(worse)
        w("")


def fused_section(L, models):
    """The fused operators pt2onnx emits per opset (run.py counts them in
    each converted model), for the models that have any."""
    w = L.append
    rows = []
    for n in sorted(models):
        m = models[n]
        for p, per in m.get("pt2onnx", {}).items():
            if not any(r.get("fused") for r in per.values()):
                continue
            cells = []
            for v in OPSETS:
                r = per.get(str(v))
                if not r or not r.get("converted"):
                    cells.append(cell_pt(r))
                    continue
                fz = r.get("fused") or {}
                cells.append((", ".join(f"{k} {c}" for k, c in sorted(fz.items())) or "none")
                             + f" ({r.get('nodes', '?')} nodes{'' if r.get('status') == 'pass' else ', ✗'})")
            rows.append(f"| {n} | {PATH_LABEL[p]} | " + " | ".join(cells) + " |")
    if not rows:
        return
    w("## Fused operators per opset")
    w("")
    w("Models where pt2onnx emitted one of the newer opsets' fused operators (LayerNormalization, "
      "GroupNormalization, Gelu, Attention, RMSNormalization): their count and the main graph's node count per "
      "opset; ✗ marks a conversion that did not pass. Where a fused operator is not emitted, the decomposition is "
      "kept (docs/opsets.md says why).")
    w("")
    hdr = "| model | path | " + " | ".join(f"opset {v}" for v in OPSETS) + " |"
    w(hdr)
    w("|" + "---|" * (hdr.count("|") - 1))
    L.extend(rows)
    w("")


def error_cause(e):
    """An error line as a cause: the paths, numbers, shapes and operator
    names that differ from sample to sample taken out."""
    e = re.sub(r"WORK/\S+|/\S+\.(pt|onnx|npy)\b|'[^' ]*\.pt'", "FILE", str(e))
    e = re.sub(r" ?\(code/[^)]*\)", "", e)  # the model's source line
    e = re.sub(r"%[\w.]+", "%V", e)
    e = re.sub(r"\baten::\w+", "aten::*", e)  # the OpInfos column names them
    e = re.sub(r"\[[-\d, ]*\]", "[...]", e)
    e = re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?(?![\w.])", "N", e)
    return e


def opinfo_section(L, models):
    """Issue 14's measure: one traced model per (OpInfo, sample) of torch
    1.13's op_db, pt2onnx's trace path at opset 13 beside torch.onnx.export
    of the same archives; what fails, grouped by cause, with the OpInfos."""
    ms = {n: m for n, m in models.items() if m.get("family") == "opinfo"}
    if not ms:
        return
    w = L.append
    v = str(FAMILY_OPSETS["opinfo"][0])
    na, app = collections.Counter(), {}
    for n, m in ms.items():
        r = m.get("pt2onnx", {}).get("trace", {}).get(v)
        if not r or r.get("status") == "n/a":
            why = (r or {}).get("error", "not run")
            why = re.sub(r"^model not generated: no model: |^no traced archive: ", "", why)
            na[error_cause(why)] += 1
            continue
        app[n] = m
    pt = {n for n, m in app.items() if m["pt2onnx"]["trace"][v].get("status") == "pass"}
    tt = {n for n, m in app.items() if (m.get("torch", {}).get("traced", {}).get(v) or {}).get("pass")}
    ops = collections.Counter(m.get("opinfo") for m in ms.values() if m.get("opinfo"))
    w("## OpInfo samples")
    w("")
    w(f"The opinfo family (`tests/conformance/opinfo.py`): one model per sample of every OpInfo in torch 1.13's "
      f"`op_db`, one dtype per OpInfo (float32 where it has it), traced, converted by pt2onnx's trace path at "
      f"opset {v} and by torch.onnx.export from the same traced archive, both judged as above (checker, ONNX "
      f"Runtime, torch's eager outputs). {len(ms)} samples of {len(ops)} OpInfos (the first "
      f"{max(m.get('sample') or 0 for m in ms.values()) + 1} of each: `--opinfo-samples`); {len(app)} have a "
      f"traced archive pt2onnx can be given, {len(ms) - len(app)} are not applicable (below).")
    w("")
    w("| samples | applicable | pt2onnx | torch.onnx.export | both | pt2onnx only | torch.onnx.export only | neither |")
    w("|---|---|---|---|---|---|---|---|")
    w(f"| {len(ms)} | {len(app)} | **{len(pt)}** | **{len(tt)}** | {len(pt & tt)} | {len(pt - tt)} | {len(tt - pt)} | "
      f"{len(set(app) - pt - tt)} |")
    w("")
    causes = collections.OrderedDict()
    for n in sorted(app):
        r = app[n]["pt2onnx"]["trace"][v]
        if r.get("status") != "pass":
            causes.setdefault(error_cause(r.get("error", "failed")), []).append(n)
    w(f"pt2onnx's failures by cause ({sum(len(x) for x in causes.values())} samples; the first error line with "
      "numbers, shapes and paths taken out; the OpInfos, with how many of their samples; ✓ where "
      "torch.onnx.export passes the same sample):")
    w("")

    def where(names):
        c = collections.Counter(app[n].get("opinfo") for n in names)
        tc = collections.Counter(app[n].get("opinfo") for n in names if n in tt)
        return ", ".join(f"`{o}`" + (f" ×{k}" if k > 1 else "") + (" ✓" if tc[o] else "") for o, k in sorted(c.items()))
    def aten_ops(names):
        c = collections.Counter(k for n in names for k in
                                set(re.findall(r"\baten::\w+", app[n]["pt2onnx"]["trace"][v].get("error", ""))))
        return ", ".join(f"`{k}`" + (f" ×{c[k]}" if c[k] > 1 else "") for k in sorted(c)) or "–"
    w("| samples | cause | aten operators named | OpInfos |")
    w("|---|---|---|---|")
    for e, names in sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        w(f"| {len(names)} | {esc(e)} | {aten_ops(names)} | {where(names)} |")
    w("")
    w("Not applicable, by reason:")
    w("")
    for e, c in na.most_common():
        w(f"- {c}× {esc(e)}")
    w("")
    tcauses = collections.Counter()
    for n in app:
        r = app[n].get("torch", {}).get("traced", {}).get(v) or {"error": "not run"}
        if not r.get("pass"):
            tcauses[error_cause(r.get("error", "outputs differ"))] += 1
    w("<details><summary>torch.onnx.export's failures on the same archives, by cause</summary>")
    w("")
    for e, c in tcauses.most_common():
        w(f"- {c}× {esc(e)}")
    w("")
    w("</details>")
    w("")


def esc_line(s):
    return s.replace("|", "\\|").replace("\n", " ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--script-ops", default=SCRIPT_OPS, help="script_ops.py's results (its section is left "
                    "out when the file is absent)")
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "docs", "conformance.md"))
    args = ap.parse_args()
    res = read_json(args.results)
    if not res:
        print(f"report.py: {args.results}: no results (run run.py --update first)", file=sys.stderr)
        return 1
    meta, models = res.get("meta", {}), res.get("models", {})
    L = []
    w = L.append
    w("# Conformance")
    w("")
    w("Generated by `tests/conformance/report.py` from `tests/conformance/results.json`; do not edit by hand. "
      "See `tests/conformance/README.md` for what each column means and how to regenerate "
      "(`make conformance`, `make conformance-fast`).")
    w("")
    lr = meta.get("last_run", {})
    w(f"- results updated {meta.get('updated_at', '?')}; torch {meta.get('torch', '?')} (the oracle and the "
      f"baseline), python3-onnx {meta.get('onnx', '?')} (checker, full_check), onnxruntime-node "
      f"{meta.get('onnxruntime-node', '?')}; opsets {', '.join(map(str, OPSETS))}.")
    w(f"- torch.onnx.export 1.13 stops at opset {max(TORCH_OPSETS)}: its columns at "
      f"{', '.join(str(v) for v in OPSETS if v not in TORCH_OPSETS)} are **n/a** (not applicable, not failures); "
      f"its per-model cells are opsets {'/'.join(map(str, TORCH_OPSETS))}.")
    w(f"- The checker: python3-onnx's `check_model(full_check=True)` up to opset {ONNX_CHECKER_MAX} (the newest "
      "its schemas know); above, pt2onnx's own `check` (`bin/check`, onnx 1.23.1's schemas; "
      "`tests/conformance/onnx_info.py`).")
    fams = collections.Counter(m.get("family", "?") for m in models.values())
    w(f"- models in this file: {len(models)} ({', '.join(f'{f} {fams[f]}' for f in FAMILIES if fams[f])}).")
    if not lr.get("pt2onnx_found", True):
        w("- **pt2onnx was not built when this ran**: every pt2onnx cell is a failure by construction "
          "(an honest table: stages that do not exist yet fail).")
    missing = [n for n, m in models.items() if m.get("stage") == "missing" and m.get("family") not in OWN_SECTION]
    failed = [n for n, m in models.items() if m.get("stage") == "failed" and m.get("family") not in OWN_SECTION]
    if missing:
        w(f"- {len(missing)} models were not generated when this ran (· in the archive columns): they count as "
          "pt2onnx failures until they are.")
    if failed:
        w(f"- {len(failed)} models could not be built in torch (see the error list); those whose registry name is "
          "no operator of torch 1.13 count as not applicable, the others as failures.")
    w("")
    w("Legend: · not generated; ✓ converted, passed the checker and matched torch's outputs under ONNX Runtime on every input set "
      "(fp32: max relative error ≤ 1e-4; integers and bools exact); ✗ failed; – not applicable (no such archive: "
      "torch.jit.script or trace failed on the model); for torch.onnx.export ≠ means it exported but the checker "
      "or ONNX Runtime's outputs disagree.")
    w("")

    # --- totals per family and opset
    w("## Totals per family and opset")
    w("")
    w("pass / applicable for each pt2onnx path, next to torch.onnx.export of the same archives "
      "(traced archive / scripted archive); · not run at that opset; n/a: torch.onnx.export 1.13 has no such "
      "opset.")
    w("")
    hdr = "| family | models | opset | " + " | ".join(f"pt2onnx {PATH_LABEL[p]}" for p in PATHS) + \
          " | torch.onnx.export (traced .pt) | torch.onnx.export (scripted .pt) |"
    w(hdr)
    w("|" + "---|" * (hdr.count("|") - 1))
    grand = collections.Counter()
    for f in FAMILIES:
        ms = [m for m in models.values() if m.get("family") == f]
        if not ms:
            continue
        own = f in OWN_SECTION
        if own:  # its counts stay out of the "all" rows
            saved = grand.copy()
        for v in FAMILY_OPSETS.get(f, OPSETS):
            cells = []
            for p in PATHS:
                rs = [m.get("pt2onnx", {}).get(p, {}).get(str(v)) for m in ms]
                rs = [r for r in rs if r]
                app = [r for r in rs if r.get("status") != "n/a"]
                ok = sum(r.get("status") == "pass" for r in app)
                grand[(p, v, "pass")] += ok
                grand[(p, v, "app")] += len(app)
                cells.append(f"{ok}/{len(app)}" if rs else "·")  # ·: not run at this opset
            for arch in ("traced", "scripted"):
                if f in NO_TORCH_EXPORT or not any(ARCH_OF[p] == arch for p in FAMILY_PATHS.get(f, PATHS)):
                    cells.append("–")
                    continue
                if v not in TORCH_OPSETS:
                    cells.append("n/a")
                    continue
                rs = [m.get("torch", {}).get(arch, {}).get(str(v)) for m in ms]
                app = [m for m in ms if m.get("archives", {}).get(arch, {}).get("ok")]
                ok = sum(1 for r in rs if r and r.get("pass"))
                grand[(arch, v, "pass")] += ok
                grand[(arch, v, "app")] += len(app)
                cells.append(f"{ok}/{len(app)}")
            w(f"| {f} | {len(ms)} | {v} | " + " | ".join(cells) + " |")
        if own:
            grand = saved
    nall = sum(1 for m in models.values() if m.get("family") not in OWN_SECTION)
    for v in OPSETS:
        cells = [f"**{grand[(p, v, 'pass')]}/{grand[(p, v, 'app')]}**" for p in PATHS]
        cells += [f"**{grand[(a, v, 'pass')]}/{grand[(a, v, 'app')]}**" if v in TORCH_OPSETS else "n/a"
                  for a in ("traced", "scripted")]
        w(f"| **all** | {nall} | {v} | " + " | ".join(cells) + " |")
    w("")
    if any(fams[f] for f in OWN_SECTION):
        w("The **all** rows leave out " + ", ".join(f for f in OWN_SECTION if fams[f]) +
          " (its own section below: other paths and opsets).")
        w("")

    newer_opsets_section(L, models)
    fused_section(L, models)

    # --- torch.onnx.export's own failures
    w("## torch.onnx.export's own failures")
    w("")
    w("Per opset, over the archives that exist: export raised (✗), or exported a model the checker rejects or "
      "whose outputs under ONNX Runtime disagree with torch (≠).")
    w("")
    w("| family | opset | traced .pt: ✗ | traced .pt: ≠ | scripted .pt: ✗ | scripted .pt: ≠ |")
    w("|---|---|---|---|---|---|")
    for f in FAMILIES + ("all",):
        ms = [m for m in models.values() if (f == "all" and m.get("family") not in OWN_SECTION)
              or m.get("family") == f]
        if not ms or f in NO_TORCH_EXPORT:
            continue
        for v in [v for v in TORCH_OPSETS if v in FAMILY_OPSETS.get(f, TORCH_OPSETS)]:
            c = []
            for arch in ("traced", "scripted"):
                rs = [m.get("torch", {}).get(arch, {}).get(str(v)) for m in ms]
                rs = [r for r in rs if r]
                c.append(sum(1 for r in rs if not r.get("ok")))
                c.append(sum(1 for r in rs if r.get("ok") and not r.get("pass")))
            b = "**" if f == "all" else ""
            w(f"| {b}{f}{b} | {v} | " + " | ".join(f"{b}{x}{b}" for x in c) + " |")
    w("")

    # --- the models
    w("## Models")
    w("")
    w("pt2onnx columns: opsets " + "/".join(map(str, OPSETS)) + "; torch.onnx.export columns: opsets "
      + "/".join(map(str, TORCH_OPSETS)) + ". Nodes, time and RSS: pt2onnx against "
      "torch.onnx.export of the same archive at opset 17 (trace path vs traced archive), as ratios "
      "(wall time and peak RSS of the whole process, each its own child).")
    w("")
    hdr = ("| model | family | weights MB | traced | scripted | torch traced .pt | torch scripted .pt | "
           + " | ".join(PATH_LABEL[p] for p in PATHS) + " | nodes | time | RSS | torch time s | torch RSS MB |")
    w(hdr)
    w("|" + "---|" * (hdr.count("|") - 1))
    for f in FAMILIES:
        if f == "op" or f in OWN_SECTION:
            continue
        for n in sorted(k for k, m in models.items() if m.get("family") == f):
            m = models[n]
            a = m.get("archives", {})
            tr = "".join(torch_cell(m.get("torch", {}).get("traced", {}).get(str(v))) for v in TORCH_OPSETS)
            sc = "".join(torch_cell(m.get("torch", {}).get("scripted", {}).get(str(v))) for v in TORCH_OPSETS)
            pts = ["".join(cell_pt(m.get("pt2onnx", {}).get(p, {}).get(str(v))) for v in OPSETS) for p in PATHS]
            t17 = m.get("torch", {}).get("traced", {}).get("17", {})
            p17 = m.get("pt2onnx", {}).get("trace", {}).get("17", {})
            nodes = ratio(p17.get("nodes"), t17.get("nodes")) if p17.get("converted") else ""
            tm = ratio(p17.get("wall_s"), t17.get("wall_s")) if p17.get("converted") else ""
            rss = ratio(p17.get("rss_kb"), t17.get("rss_kb")) if p17.get("converted") else ""
            def arch_cell(k):
                if m.get("stage") == "missing":
                    return "·"
                if f == "pt2":  # exported.pt2 only (the unpt2 column)
                    return "–"
                return "✓" if a.get(k, {}).get("ok") else "✗"
            w(f"| {n} | {f} | {fmt_mb(m.get('weight_bytes'))} | {arch_cell('traced')} | "
              f"{arch_cell('scripted')} | {tr} | {sc} | " + " | ".join(pts) +
              f" | {nodes} | {tm} | {rss} | {t17.get('wall_s', '')} | "
              f"{round(t17['rss_kb'] / 1024) if t17.get('rss_kb') else ''} |")
    w("")

    # --- operators
    ops = {n: m for n, m in models.items() if m.get("family") == "op"}
    if ops:
        w("## Operators")
        w("")
        nop = len(ops)
        n_opinfo = sum(1 for m in ops.values() if m.get("source_kind") == "opinfo")
        n_manual = sum(1 for m in ops.values() if m.get("source_kind") == "manual")
        n_in = sum(1 for m in ops.values() if m.get("op_in_trace") or m.get("op_in_script"))
        w(f"One tiny model per aten operator in torch 1.13's exporter registry: {nop} operators; inputs from "
          f"OpInfo sample inputs for {n_opinfo}, a hand-written model for {n_manual}, none for "
          f"{nop - n_opinfo - n_manual}. The operator appears in the traced or scripted graph for {n_in}. "
          "Columns: the opsets torch's registry has a symbolic for (from the lowest), torch.onnx.export of the "
          "traced / scripted archive at " + "/".join(map(str, TORCH_OPSETS)) + ", pt2onnx per path at "
          + "/".join(map(str, OPSETS)) + ".")
        w("")
        hdr = ("| operator | inputs from | in graph | torch symbolic from | torch traced .pt | torch scripted .pt | "
               + " | ".join(PATH_LABEL[p] for p in PATHS) + " |")
        w(hdr)
        w("|" + "---|" * (hdr.count("|") - 1))
        for n in sorted(ops, key=lambda k: ops[k].get("op", k)):
            m = ops[n]
            op = m.get("op", n)
            src = m.get("opinfo") or m.get("source_kind") or ("–" if m.get("stage") == "failed" else "")
            ing = ("T" if m.get("op_in_trace") else "") + ("S" if m.get("op_in_script") else "")
            reg = m.get("registry_opsets") or []
            tr = "".join(torch_cell(m.get("torch", {}).get("traced", {}).get(str(v))) for v in TORCH_OPSETS)
            sc = "".join(torch_cell(m.get("torch", {}).get("scripted", {}).get(str(v))) for v in TORCH_OPSETS)
            pts = ["".join(cell_pt(m.get("pt2onnx", {}).get(p, {}).get(str(v))) for v in OPSETS) for p in PATHS]
            w(f"| `{esc(op)}` | {esc(src)} | {ing or '–'} | {reg[0] if reg else ''} | {tr} | {sc} | "
              + " | ".join(pts) + " |")
        w("")
        w("In graph: T traced graph, S scripted graph (after inlining); – neither (the model is kept, but it does "
          "not test that operator).")
        w("")

    opinfo_section(L, models)

    # --- failures
    w("## First error line of each failure")
    w("")
    w("pt2onnx failures, one line per model and error (the paths and opsets where it happened).")
    w("")
    groups = collections.Counter()
    lines = []
    for n in sorted(models):
        m = models[n]
        if m.get("family") in OWN_SECTION:
            continue
        if m.get("gen_error"):
            lines.append(f"- `{n}` (generation): {esc(m['gen_error'])}")
        errs = collections.OrderedDict()
        for p in PATHS:
            per = m.get("pt2onnx", {}).get(p, {})
            for v in OPSETS:
                r = per.get(str(v))
                if r and r.get("status") == "fail":
                    e = r.get("error", "failed")
                    groups[re.sub(r"'[^' ]*\.pt'", "'MODEL.pt'", e)] += 1
                    errs.setdefault(e, collections.OrderedDict()).setdefault(p, []).append(str(v))
        for e, per in errs.items():
            where = "; ".join(f"{PATH_LABEL[p]} {','.join(vs)}" for p, vs in per.items())
            lines.append(f"- `{n}` {where}: {esc(e)}")
    if groups:
        w("Most common:")
        w("")
        for e, c in groups.most_common(8):
            w(f"- {c}× {esc(e)}")
        w("")
        w("<details><summary>every failure</summary>")
        w("")
        L.extend(lines)
        w("")
        w("</details>")
    else:
        L.extend(lines or ["none"])
    w("")

    script_ops_section(L, read_json(args.script_ops))
    L.extend(torchsuite.markdown(read_json(torchsuite.SUMMARY)))

    # torch's failures, for the record
    w("## torch.onnx.export's first error lines")
    w("")
    te = collections.Counter()
    tl = []
    for n in sorted(models):
        if models[n].get("family") in OWN_SECTION:
            continue
        for arch, per in models[n].get("torch", {}).items():
            errs = collections.OrderedDict()
            for v in TORCH_OPSETS:
                r = per.get(str(v))
                if r and not r.get("pass"):
                    errs.setdefault(r.get("error", "outputs differ"), []).append(str(v))
            for e, vs in errs.items():
                te[e.split(":")[0]] += len(vs)
                tl.append(f"- `{n}` {arch} .pt opset {','.join(vs)}: {esc(e)}")
    w("<details><summary>" + f"{len(tl)} lines" + "</summary>")
    w("")
    L.extend(tl)
    w("")
    w("</details>")
    w("")
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"wrote {os.path.relpath(args.output, ROOT)} ({len(models)} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
