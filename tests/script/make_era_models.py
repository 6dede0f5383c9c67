#!/usr/bin/python3
"""make_era_models.py - archives for tests/205-script-era.bats: one model
saved by torch 1.13, and the same archive laid out as torch 2.x lays it out,
with torch's schemas as the oracle.

  make_era_models.py OUTDIR NEWER_SCHEMAS
      OUTDIR/v1.pt   torch.jit.script of a module calling pad_sequence, as
                     torch 1.13 saves it (<root>/version, no byteorder)
      OUTDIR/v2.pt   the same records, <root>/version moved to
                     <root>/.data/version and <root>/byteorder added: what
                     torch 2.x writes, so the reader takes it for a 2.x
                     archive
      OUTDIR/nargs_1_13   arguments of torch 1.13's aten::pad_sequence
      OUTDIR/nargs_2_11   arguments of torch 2.11's (NEWER_SCHEMAS, the
                          str(schema) lines torch 2.11 printed)
      OUTDIR/default_2_11 the default torch 2.11 gives its last argument,
                          as the IR's text form writes a str constant
      aten::pad_sequence gained `str padding_side="right"` in torch 2.x:
      a 2.x archive's call leaves it out and means 2.11's default.
"""
import os
import sys
import zipfile

import torch


class M(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor):
        return torch.nn.utils.rnn.pad_sequence([x, y], True)


def main():
    out, newer = sys.argv[1], sys.argv[2]
    v1, v2 = os.path.join(out, "v1.pt"), os.path.join(out, "v2.pt")
    torch.jit.script(M()).save(v1)
    with zipfile.ZipFile(v1) as zi, \
         zipfile.ZipFile(v2, "w", zipfile.ZIP_STORED) as zo:
        root = zi.namelist()[0].split("/")[0]
        names = zi.namelist()
        assert root + "/version" in names and root + "/byteorder" not in names
        for info in zi.infolist():
            name = info.filename
            if name == root + "/version":
                name = root + "/.data/version"
            zo.writestr(name, zi.read(info.filename))
        zo.writestr(root + "/byteorder", "little")
    old = torch._C._jit_get_schemas_for_operator("aten::pad_sequence")
    assert len(old) == 1
    with open(newer) as f:
        line = [l for l in f if l.startswith("aten::pad_sequence(")][0]
    new = torch._C.parse_schema(line.strip())
    assert len(new.arguments) > len(old[0].arguments)
    with open(os.path.join(out, "nargs_1_13"), "w") as f:
        f.write("%d\n" % len(old[0].arguments))
    with open(os.path.join(out, "nargs_2_11"), "w") as f:
        f.write("%d\n" % len(new.arguments))
    with open(os.path.join(out, "default_2_11"), "w") as f:
        f.write('"%s"\n' % new.arguments[-1].default_value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
