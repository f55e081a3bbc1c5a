# aims: GB4778
# torch._dynamo.export and torch.export of functions that return nested functions.
import torch


def attempt(f, *args):
    try:
        f(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


def returns_closure(x):
    y = x + 1

    def inner():
        return y

    return y, inner


def returns_lambda(x):
    return x * 2, lambda: x


class M(torch.nn.Module):
    def forward(self, x):
        scale = x.sum()
        return x, (lambda t: t * scale)


x = torch.randn(3)
attempt(lambda: torch._dynamo.export(returns_closure)(x))
attempt(lambda: torch._dynamo.export(returns_lambda)(x))
attempt(lambda: torch._dynamo.export(M())(x))
attempt(lambda: torch.export.export(M(), (x,), strict=True))
attempt(lambda: torch.compile(returns_closure, backend="eager", fullgraph=True)(x))
attempt(lambda: torch.compile(M(), backend="eager", fullgraph=True)(x))
