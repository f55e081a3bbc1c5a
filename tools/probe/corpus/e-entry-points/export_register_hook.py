# aims: GB0173
# Tensor hooks registered inside code that is exported (torch._dynamo.export, strict
# torch.export.export), closures over locals and over a module.
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.seen = []

    def forward(self, x):
        y = self.lin(x)
        scale = 2.0
        y.register_hook(lambda g: g * scale)
        x.register_hook(lambda g: self.seen.append(g))
        return y.sum()


def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(2, requires_grad=True)
attempt(lambda: torch._dynamo.export(M())(x))
attempt(lambda: torch.export.export(M(), (x,), strict=True))
attempt(lambda: torch.export.export(M(), (x,), strict=False))
attempt(lambda: torch.compile(M(), backend="eager", fullgraph=True)(x))
attempt(lambda: torch.compile(M(), backend="aot_eager", fullgraph=True)(x).backward())
