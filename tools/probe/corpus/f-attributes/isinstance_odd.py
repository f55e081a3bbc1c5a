# aims: GB0175 GB0194
# isinstance on objects whose type Dynamo may not know: C-extension instances, a class
# with a metaclass __instancecheck__, a custom __class__ property.
import array
import collections
import datetime
import decimal
import torch


class Meta(type):
    def __instancecheck__(cls, obj):
        return True


class Any(metaclass=Meta):
    pass


class Liar:
    @property
    def __class__(self):
        return torch.Tensor


arr = array.array("i", [1, 2])
when = datetime.date(2020, 1, 1)
dec = decimal.Decimal(1)
od = collections.OrderedDict()


@torch.compile(backend="eager", fullgraph=False)
def fn(x):
    out = x
    for obj in (arr, when, dec, od, Liar(), iter(range(3)), memoryview(b"ab")):
        if isinstance(obj, (int, torch.Tensor, Any)):
            out = out + 1
    return out


fn(torch.randn(2))
