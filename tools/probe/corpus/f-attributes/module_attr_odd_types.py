# aims: GB0161 GB0188 GB0281
# A module traced as a specialized module (torchdynamo_force_dynamic = False) whose attributes
# are of odd types, read and indexed in forward.
import array
import types

import torch


class Net(torch.nn.Module):
    torchdynamo_force_dynamic = False

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.arr = array.array("f", [1.0])
        self.ns = types.SimpleNamespace(a=1)
        self.gen = (i for i in range(3))
        self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 2)])

    def forward(self, x):
        return self.lin(x) * self.arr[0] + self.ns.a + next(self.gen)


torch.compile(Net(), backend="eager", fullgraph=True)(torch.randn(2))
