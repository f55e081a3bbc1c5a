# aims: GB1140
# torch.autograd.grad inside the compiled function with inputs of odd kinds.
import torch

lin = torch.nn.Linear(2, 1)


def attempt(f, *args):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(2, requires_grad=True)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), {"a": t}), x)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), (t, 3)), x)
attempt(lambda t: torch.autograd.grad(lin(t).sum(), lin.parameters()), x)
attempt(lambda t: torch.autograd.grad(lin(t).sum(), list(lin.parameters())), x)
attempt(lambda t: torch.autograd.grad(lin(t).sum(), lin.weight), x)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), [t], grad_outputs=None), x)
attempt(lambda t: torch.autograd.grad([(t * 2).sum()], inputs=(t,)), x)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), t.detach().requires_grad_()), x)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), [[t]]), x)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), (t for _ in range(1))), x)
attempt(lambda t: torch.autograd.grad((t * 2).sum(), None), x)
