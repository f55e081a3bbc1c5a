# aims: GB0871
import torch


class Key:
    def __init__(self, n):
        self.n = n

    def __hash__(self):
        return self.n

    def __eq__(self, other):
        return self.n == other.n


@torch.compile(backend="eager", fullgraph=True)
def fn(x, n):
    s = {Key(n)}
    return x + len(s)


for n in (2, 3, 4):
    fn(torch.randn(2), n)
