# aims: GB0281 GB0153
import torch


class Layers(torch.nn.Sequential):
    torchdynamo_force_dynamic = False


class Net(torch.nn.Module):
    torchdynamo_force_dynamic = False

    def __init__(self):
        super().__init__()
        self.layers = Layers(torch.nn.Linear(2, 2), torch.nn.ReLU())

    def forward(self, x):
        return self.layers[x.shape](x)


torch.compile(Net(), backend="eager", fullgraph=True)(torch.randn(2))
