# aims: GB0271 GB0252
# A class's __dict__ read, then a class attribute set, inside the compiled function;
# attributes found on an instance but in no class __dict__ of its MRO.
import torch


class Config:
    scale = 2


class Meta(type):
    offset = 1


class WithMeta(metaclass=Meta):
    pass


class Slotted:
    __slots__ = ("a",)

    def __init__(self):
        self.a = 3


def attempt(f, *args):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


def set_after_dict(x):
    d = Config.__dict__
    Config.scale = 3
    return x * d["scale"]


def set_after_vars(x):
    d = vars(Config)
    setattr(Config, "scale", 4)
    return x * len(d)


x = torch.randn(2)
attempt(set_after_dict, x)
attempt(set_after_vars, x)
attempt(lambda t: t + WithMeta.offset, x)
attempt(lambda t: t + type(WithMeta()).offset, x)
attempt(lambda t: t + Slotted().a, x)
obj = Slotted()
attempt(lambda t: t + obj.a + len(obj.__slots__), x)
attempt(lambda t: (t, obj.__class__.__mro__, obj.__doc__, obj.__module__), x)
attempt(lambda t: (t, WithMeta.__dict__, WithMeta.mro()), x)
