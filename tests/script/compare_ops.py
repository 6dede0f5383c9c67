#!/usr/bin/python3
"""compare_ops.py IR.txt NAME_PREFIX - checks `script -S` output against the
oracle files make_models.py wrote (NAME_PREFIX.ops, NAME_PREFIX.nweights):

- the set of aten:: kinds in the IR equals torch's, in-place kinds
  (`aten::relu_`) counted as their out-of-place form on both sides, since
  `script` makes them out-of-place;
- the number of weights equals the state_dict entries that inference uses
  (num_batches_tracked is only used in training).

Prints the differences and exits 1 on a mismatch."""
import re
import sys


def norm(k):
    if k.endswith("_") and not k.endswith("__"):
        return k[:-1]
    return k


def main():
    text = open(sys.argv[1]).read()
    prefix = sys.argv[2]
    ours = {norm(k) for k in re.findall(r"= (aten::\w+)[\[(]", text)}
    theirs = {norm(line.strip()) for line in open(prefix + ".ops")
              if line.strip()}
    ok = True
    if ours != theirs:
        print("only in script:", sorted(ours - theirs))
        print("only in torch: ", sorted(theirs - ours))
        ok = False
    nw = len(re.findall(r"= weight\(", text))
    want = int(open(prefix + ".nweights").read())
    if nw != want:
        print("weights: script %d, torch %d" % (nw, want))
        ok = False
    print("ops:", " ".join(sorted(ours)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
