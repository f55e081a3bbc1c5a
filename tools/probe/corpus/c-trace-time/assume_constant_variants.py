# aims: GB2922 GB0080 GB0027
# assume_constant_result functions fed values Dynamo cannot replay for real: in-place results,
# views, tensors made under no_grad or inference_mode, parameters, identity checks on
# tensors, returning tensors, lists and None.
import torch

lin = torch.nn.Linear(3, 1)


@torch.compiler.assume_constant_result
def as_float(t):
    return float(t.abs().max())


@torch.compiler.assume_constant_result
def same(a, b):
    return a is b


@torch.compiler.assume_constant_result
def as_tensor(t):
    return t * 2


@torch.compiler.assume_constant_result
def as_list(t):
    return t.tolist()


@torch.compiler.assume_constant_result
def raises(t):
    raise ValueError("no")


def attempt(f, *args):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(3)
attempt(lambda t: t * as_float(t.add_(1)), x.clone())
attempt(lambda t: t * as_float(t[0:2]), x)
attempt(lambda t: t * as_float(t.sin()), x)
attempt(lambda t: t * as_float(lin.weight.mul_(1)), x)


def under_no_grad(t):
    with torch.no_grad():
        u = t.mul_(2)
    return t * as_float(u)


def under_inference(t):
    with torch.inference_mode():
        u = t * 2
    return t * as_float(u)


def grad_leaf(t):
    return t * as_float(t)


attempt(under_no_grad, x.clone())
attempt(under_inference, x)
attempt(grad_leaf, torch.randn(3, requires_grad=True))
attempt(lambda t: t * same(t, t), x)
attempt(lambda t: t * same(t, t.view(3)), x)
attempt(lambda t: t * same(lin.weight, lin.weight), x)
attempt(lambda t: t + as_tensor(t), x)
attempt(lambda t: t + as_tensor(lin.weight).sum(), x)
attempt(lambda t: t + len(as_list(t)), x)
attempt(lambda t: t + raises(t), x)
attempt(lambda t: t * as_float(t.nonzero()), x)
attempt(lambda t: t * as_float(t.detach_()), x.clone())
attempt(lambda t: t * as_float(torch.ones(2).resize_(3)), x)
attempt(lambda t: t * as_float(t.set_(torch.ones(3))), x.clone())
