# aims: GB9741
# A compiled function called under functorch transforms (vmap, grad, jvp, jacrev,
# functionalize), and transforms inside a compiled function over a compiled one.
import torch
from torch import func


@torch.compile(backend="eager")
def inner(t):
    return (t.sin() * 2).sum()


def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(3)
attempt(lambda: func.vmap(inner)(torch.randn(2, 3)))
attempt(lambda: func.grad(inner)(x))
attempt(lambda: func.jvp(inner, (x,), (torch.ones(3),)))
attempt(lambda: func.jacrev(inner)(x))
attempt(lambda: func.functionalize(inner)(x))
attempt(lambda: func.vmap(func.grad(inner))(torch.randn(2, 3)))
full = torch.compile(lambda t: (t.cos() * 3).sum(), backend="eager", fullgraph=True)
attempt(lambda: func.vmap(full)(torch.randn(2, 3)))
attempt(lambda: func.grad(full)(x))
