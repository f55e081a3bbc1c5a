# aims: GB0167 GB0168
# f(*obj) and f(**obj) with iterables and mappings Dynamo may not unpack.
import collections
import types

import torch


def take(*args, **kwargs):
    return len(args) + len(kwargs)


class Mapping:
    def keys(self):
        return ["a"]

    def __getitem__(self, k):
        return 1


@torch.compile(backend="eager", fullgraph=False)
def fn(x):
    a = take(*x)
    b = take(*{1: 2})
    c = take(**types.MappingProxyType({"a": 1}))
    d = take(**collections.OrderedDict(a=1))
    e = take(**Mapping())
    f = take(*range(3), *"ab", *x.shape)
    return x + a + b + c + d + e + f


fn(torch.randn(2))
