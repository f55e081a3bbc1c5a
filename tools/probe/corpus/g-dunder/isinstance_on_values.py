# aims: GB0175 GB0194
# isinstance() and type() on values Dynamo models without a plain Python type: formatted
# strings of symbolic ints, super objects, grad_fn, grad-mode objects, generators, iterators,
# bound methods, dict views, sizes.
import torch


class Base:
    def m(self):
        return 1


class Child(Base):
    def probe(self, x, kinds):
        return isinstance(super(), kinds)


def attempt(make):
    def fn(x, n):
        v = make(x, n)
        return x + 1, isinstance(v, (str, int, object)), isinstance(v, torch.Tensor), type(v)

    try:
        compiled = torch.compile(fn, backend="eager", fullgraph=True)
        for n in (2, 3):
            compiled(torch.randn(n, requires_grad=True), n)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


for make in (
    lambda x, n: f"{n}",
    lambda x, n: "{}-{}".format(n, x.shape[0]),
    lambda x, n: "%d" % n,
    lambda x, n: super(Child, Child()),
    lambda x, n: (x * 2).grad_fn,
    lambda x, n: torch.no_grad(),
    lambda x, n: torch.enable_grad(),
    lambda x, n: (i for i in range(n)),
    lambda x, n: iter(x),
    lambda x, n: x.add,
    lambda x, n: Child().m,
    lambda x, n: {"a": n}.keys(),
    lambda x, n: {"a": n}.items(),
    lambda x, n: x.shape,
    lambda x, n: x.size(),
    lambda x, n: range(n),
    lambda x, n: slice(n),
    lambda x, n: torch.float32,
    lambda x, n: torch.device("cpu"),
    lambda x, n: ...,
    lambda x, n: NotImplemented,
    lambda x, n: torch.autograd.Function,
    lambda x, n: x.sum().item(),
    lambda x, n: float(n),
    lambda x, n: n * 1.5,
    lambda x, n: n > 2,
    lambda x, n: zip([n], [n]),
    lambda x, n: map(abs, [n]),
    lambda x, n: enumerate([n]),
    lambda x, n: reversed([n]),
    lambda x, n: torch.finfo(x.dtype),
    lambda x, n: x.untyped_storage(),
    lambda x, n: torch.Size([n]),
    lambda x, n: torch.nn.Parameter(torch.ones(1)),
    lambda x, n: torch.cpu.current_stream(),
):
    attempt(make)
