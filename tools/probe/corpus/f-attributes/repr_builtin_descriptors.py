# aims: GB2852
# repr() and !r of user objects whose __repr__ is a C slot wrapper or a builtin method.
import collections
import torch


class IntLike(int):
    pass


class UsesObjectRepr:
    __repr__ = object.__repr__


class UsesIntRepr(int):
    __repr__ = int.__repr__


class UsesListRepr(list):
    pass


class Odd:
    __repr__ = list.__repr__


class Point(collections.namedtuple("P", "a b")):
    pass


def attempt(f, *args):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(*args)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(2)
for obj in (IntLike(3), UsesObjectRepr(), UsesIntRepr(3), UsesListRepr([1]), Point(1, 2)):
    attempt(lambda t, o=obj: (t + 1, repr(o)), x)
    attempt(lambda t, o=obj: (t + 1, f"{o!r}"), x)
    attempt(lambda t, o=obj: (t + 1, str(o)), x)
attempt(lambda t: (t + 1, repr(IntLike(4))), x)
attempt(lambda t: (t + 1, repr(Odd())), x)
