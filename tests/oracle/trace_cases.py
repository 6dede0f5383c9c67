#!/usr/bin/python3
"""trace_cases.py - shared oracle for the `trace` op tests (tests/301-303):
builds small TorchScript archives with torch's own outputs, and compares
trace's --save-outputs .npy files with them.

As a module (from a test's gen.py, with this directory on sys.path):

  build_all(cases, out, only)
      cases: {name: (module, inputs, mode, group)}, mode 'script' or
      'trace'.  For each case writes OUT/NAME/model.pt, in<k>.npy,
      want<k>.npy (torch's outputs, flattened) and meta.json (group,
      ninputs, noutputs, random = group is 'random', kinds = the node kinds
      of the traced graph for mode 'trace').  `only`: a set of names or
      None.  Exits 1 after printing one line per case torch could not build.

As a command:

  trace_cases.py compare ops DIR...
      shapes and dtypes equal; integers and bools exactly; floats with equal
      NaN positions and infinities, and the finite values to
      max |got - want| / max(1, max |want|) <= 1e-4 (1e-3 for float16);
      models of group 'random': shape and dtype only.
  trace_cases.py compare moves DIR...
      for ops that only move values: shapes and dtypes equal; empty outputs
      by shape; integers and bools exactly; floats to
      max |got - want| <= 1e-5 * max(1, max |want|) (NaN fails).

  DIR/got/out<k>.npy is trace's output k.  Prints one line per mismatch;
  exit 1 if any.
"""
import json
import os
import sys
import warnings

import numpy as np


def flatten(o):
    if isinstance(o, (tuple, list)):
        r = []
        for e in o:
            r += flatten(e)
        return r
    return [o]


def build(name, mod, inputs, mode, group, d):
    import torch

    with torch.no_grad():
        if mode == 'script':
            sm = torch.jit.script(mod)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                sm = torch.jit.trace(mod, tuple(i.clone() for i in inputs),
                                     check_trace=False)
        sm.save(os.path.join(d, 'model.pt'))
        outs = flatten(mod(*[i.clone() for i in inputs]))
    kinds = sorted({n.kind() for n in sm.inlined_graph.nodes()}) \
        if mode == 'trace' else []
    for k, t in enumerate(inputs):
        np.save(os.path.join(d, f'in{k}.npy'), t.numpy())
    for k, t in enumerate(outs):
        np.save(os.path.join(d, f'want{k}.npy'), t.contiguous().numpy())
    with open(os.path.join(d, 'meta.json'), 'w') as f:
        json.dump({'group': group, 'ninputs': len(inputs),
                   'noutputs': len(outs), 'random': group == 'random',
                   'kinds': kinds}, f)


def build_all(cases, out, only):
    failed = []
    for name, (mod, inputs, mode, group) in cases.items():
        if only and name not in only:
            continue
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        mod.eval()
        try:
            build(name, mod, inputs, mode, group, d)
        except Exception as e:
            print(f'{name}: {str(e).strip().splitlines()[-1][:300]}',
                  file=sys.stderr)
            failed.append(name)
    if failed:
        sys.exit(1)


def compare_ops(name, k, got, want):
    """One line of mismatch for output k, or None (the 'ops' rule)."""
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    if not np.array_equal(np.isnan(g), np.isnan(w)):
        return f'{name}: output {k}: NaN positions differ'
    fin = ~np.isnan(w)
    if not np.array_equal(g[np.isinf(w)], w[np.isinf(w)]):
        return f'{name}: output {k}: infinities differ'
    fin &= ~np.isinf(w)
    if fin.any():
        err = np.abs(g[fin] - w[fin]).max()
        scale = max(1.0, np.abs(w[fin]).max())
        tol = 1e-3 if want.dtype == np.float16 else 1e-4
        if err / scale > tol:
            i = np.argmax(np.where(fin, np.abs(g - w), -1))
            i = np.unravel_index(i, w.shape)
            return (f'{name}: output {k}: max error {err:.3g} '
                    f'(got {g[i]}, want {w[i]} at {i})')
    return None


def compare_moves(name, k, got, want):
    """One line of mismatch for output k, or None (the 'moves' rule)."""
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    err = np.abs(g - w).max()
    if not err <= 1e-5 * max(1.0, np.abs(w).max()):
        i = np.unravel_index(np.argmax(np.abs(g - w)), w.shape)
        return (f'{name}: output {k}: max error {err:.3g} '
                f'(got {g[i]}, want {w[i]} at {i})')
    return None


def compare(rule, dirs):
    bad = 0
    for d in dirs:
        meta = json.load(open(os.path.join(d, 'meta.json')))
        name = os.path.basename(d)
        for k in range(meta['noutputs']):
            want = np.load(os.path.join(d, f'want{k}.npy'))
            gp = os.path.join(d, 'got', f'out{k}.npy')
            if not os.path.exists(gp):
                print(f'{name}: output {k}: missing')
                bad += 1
                continue
            got = np.load(gp)
            if got.shape != want.shape or got.dtype != want.dtype:
                print(f'{name}: output {k}: got {got.dtype}{list(got.shape)}, '
                      f'want {want.dtype}{list(want.shape)}')
                bad += 1
                continue
            if rule == 'ops' and meta.get('random', False):
                continue
            if rule == 'moves' and want.size == 0:
                continue
            if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
                if not np.array_equal(got, want):
                    i = np.argwhere(got != want)[0]
                    print(f'{name}: output {k}: at {tuple(i)} got '
                          f'{got[tuple(i)]}, want {want[tuple(i)]}')
                    bad += 1
                continue
            f = compare_ops if rule == 'ops' else compare_moves
            msg = f(name, k, got, want)
            if msg:
                print(msg)
                bad += 1
    return bad


def main(argv):
    if len(argv) < 3 or argv[0] != 'compare' or argv[1] not in ('ops', 'moves'):
        print('usage: trace_cases.py compare ops|moves DIR...', file=sys.stderr)
        return 2
    return 1 if compare(argv[1], argv[2:]) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
