# aims: GB1380
# Tensor indexing and banned methods inside torch._higher_order_ops.strict_mode.
import torch
from torch._higher_order_ops import strict_mode


def attempt(f, *args):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(3, 3)
attempt(lambda t: strict_mode(lambda u: u[0] + 1, (t,)), x)
attempt(lambda t: strict_mode(lambda u: u[u > 0].sum(), (t,)), x)
attempt(lambda t: strict_mode(lambda u: u.__getitem__(1), (t,)), x)
attempt(lambda t: strict_mode(lambda u: u.data * 2, (t,)), x)
attempt(lambda t: strict_mode(lambda u: u.item() * u, (t,)), x)
attempt(lambda t: strict_mode(lambda u: u.tolist(), (t,)), x)
