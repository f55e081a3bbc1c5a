# aims: GB0199
# A mappingproxy (a class's __dict__, types.MappingProxyType) returned or kept across a break.
import types

import torch


class Config:
    scale = 2


@torch.compile(backend="eager", fullgraph=False)
def fn(x):
    proxy = types.MappingProxyType({"a": 1})
    cls_dict = Config.__dict__
    print("break")
    return x * proxy["a"] * cls_dict["scale"], proxy, cls_dict


fn(torch.randn(2))
