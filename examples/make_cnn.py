#!/usr/bin/python3
"""make_cnn.py - writes the bundled example model: a small CNN (seed 0) saved
by torch.jit.script + torch.jit.save as cnn.pt, an example input
(cnn_input.npy) and torch's own output on it (cnn_expected.npy), the oracle
that examples/run.sh compares ONNX Runtime's result with.

    /usr/bin/python3 examples/make_cnn.py examples
"""
import os
import sys

import numpy as np
import torch


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.relu = torch.nn.ReLU()
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.conv(x)))
        return self.fc(torch.flatten(x, 1))


def main(out):
    torch.manual_seed(0)
    m = SmallCNN().eval()
    x = torch.randn(1, 3, 8, 8)
    with torch.no_grad():
        y = m(x)
    torch.jit.save(torch.jit.script(m), os.path.join(out, "cnn.pt"))
    np.save(os.path.join(out, "cnn_input.npy"), x.numpy())
    np.save(os.path.join(out, "cnn_expected.npy"), y.numpy())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
