# aims: GB0281 GB0153
import torch


class Layers(torch.nn.ModuleDict):
    torchdynamo_force_dynamic = False


class Net(torch.nn.Module):
    torchdynamo_force_dynamic = False

    def __init__(self):
        super().__init__()
        self.layers = Layers({"a": torch.nn.Linear(2, 2)})

    def forward(self, x, key):
        return self.layers[key](x)


net = torch.compile(Net(), backend="eager", fullgraph=True)
net(torch.randn(2), "a")
