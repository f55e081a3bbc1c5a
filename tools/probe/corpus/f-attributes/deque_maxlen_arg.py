# aims: GB0097
# A bounded deque passed in, appended to and extended past its maxlen.
import collections

import torch


@torch.compile(backend="eager", fullgraph=False)
def fn(x, dq):
    dq.append(x)
    dq.extend([x, x])
    dq.appendleft(x * 2)
    return x + 1


fn(torch.randn(2), collections.deque(maxlen=2))
