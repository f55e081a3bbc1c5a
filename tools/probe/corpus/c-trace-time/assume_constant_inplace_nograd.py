# aims: GB2922
# assume_constant_result runs its function for real at trace time; its input was changed in
# place under no_grad, which the replay cannot repeat.
import torch


@torch.compiler.assume_constant_result
def bound(w):
    return float(w.detach().abs().max())


lin = torch.nn.Linear(4, 1)


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    with torch.no_grad():
        w = lin.weight.clamp_(-0.5, 0.5)
    return lin(x) / bound(w)


fn(torch.randn(2, 4))
