# aims: GB0353
# torch._dynamo.export with a tensor default argument that is not passed.
import torch

DEFAULT = torch.tensor(2.0)


class M(torch.nn.Module):
    def forward(self, x, scale=DEFAULT):
        return x * scale


torch._dynamo.export(M())(torch.randn(3))
