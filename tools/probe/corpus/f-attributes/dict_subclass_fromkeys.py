# aims: GB0278
# fromkeys on dict types Dynamo does not model: a dict subclass, Counter, a UserDict.
import collections

import torch


class Registry(dict):
    pass


def attempt(f):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(torch.randn(2))
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


attempt(lambda x: (x + 1, Registry.fromkeys(["a", "b"], 0)))
attempt(lambda x: (x + 1, collections.OrderedDict.fromkeys("ab")))
attempt(lambda x: (x + 1, collections.defaultdict.fromkeys("ab")))
attempt(lambda x: (x + 1, collections.Counter.fromkeys("ab")))
attempt(lambda x: (x + 1, dict.fromkeys.__func__(Registry, "ab") if hasattr(dict.fromkeys, "__func__") else 0))
attempt(lambda x: (x + 1, type({}).fromkeys("ab")))
attempt(lambda x: (x + 1, Registry().fromkeys("ab")))
