# aims: GB0097
# A deque with a maxlen, made outside, appended to inside the compiled function.
import collections

import torch

history = collections.deque([torch.zeros(2)], maxlen=3)


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    history.append(x)
    return x + 1


fn(torch.randn(2))
