# aims: GB0213 GB0215 GB0214
# Builtins and operators on tensors and symbolic ints that torch does not implement for them.
import operator

import torch


def attempt(f, *args):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x, y = torch.randn(3), torch.randn(3)
i = torch.arange(3)
for op in (
    lambda a, b: divmod(a, b),
    lambda a, b: pow(a, 2, 3),
    lambda a, b: round(a, 1),
    lambda a, b: a << 1,
    lambda a, b: operator.concat(a, b),
    lambda a, b: operator.matmul(a, 2),
    lambda a, b: a is b,
    lambda a, b: a is not b,
    lambda a, b: operator.is_(a, b),
    lambda a, b: a < None,
    lambda a, b: a == None,  # noqa: E711
    lambda a, b: a < "s",
    lambda a, b: a == "s",
    lambda a, b: a in [b],
    lambda a, b: a < [1, 2, 3],
    lambda a, b: a < (1, 2, 3),
    lambda a, b: a == (1, 2, 3),
    lambda a, b: a < a.shape,
    lambda a, b: a.shape < a,
    lambda a, b: a == torch.float32,
    lambda a, b: a < 1j,
    lambda a, b: a @ b.long(),
    lambda a, b: i & a,
    lambda a, b: ~a,
    lambda a, b: abs(a.bool()),
    lambda a, b: -a.bool(),
    lambda a, b: i // 0,
    lambda a, b: operator.index(a),
    lambda a, b: int(a),
    lambda a, b: complex(a[0]),
):
    attempt(op, x, y)


def sym(op):
    def fn(t, n):
        return t + 1, op(n, t.shape[0])

    return fn


for op in (
    lambda n, m: n is m,
    lambda n, m: n is not m,
    lambda n, m: n < None,
    lambda n, m: n == "a",
    lambda n, m: n < "a",
    lambda n, m: n in {m: 1},
    lambda n, m: n < [m],
    lambda n, m: operator.is_(n, 2),
    lambda n, m: n < 1j,
    lambda n, m: n == torch.float32,
):
    try:
        compiled = torch.compile(sym(op), backend="eager", fullgraph=True, dynamic=True)
        compiled(torch.randn(3), 3)
        compiled(torch.randn(4), 5)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()
