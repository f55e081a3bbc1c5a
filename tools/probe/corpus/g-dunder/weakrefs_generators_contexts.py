# aims: GB0276 GB0283 GB0274 GB0118
# Weak references, generator protocol methods and unusual context managers inside compiled
# functions: weakref.ref / WeakKeyDictionary / finalize, send / throw / close / yield from,
# ExitStack, suppress, a context manager whose __exit__ swallows the exception.
import contextlib
import io
import weakref

import torch


class Holder:
    def __init__(self):
        self.t = torch.ones(2)


class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


holder = Holder()
cache = weakref.WeakKeyDictionary()


def gen(x):
    got = yield x + 1
    yield x * (got or 1)


def delegate(x):
    result = yield from gen(x)
    return result


def attempt(f):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(torch.randn(2))
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


attempt(lambda x: x + weakref.ref(holder)().t)
attempt(lambda x: x + (weakref.ref(x)() * 2))
attempt(lambda x: (x, weakref.ref(Holder())))
attempt(lambda x: (x, weakref.proxy(holder).t))
attempt(lambda x: (x, cache.setdefault(holder, 1)))
attempt(lambda x: (x, weakref.finalize(holder, print)))
attempt(lambda x: (x, weakref.WeakValueDictionary({1: holder})))
attempt(lambda x: (x, weakref.ref(torch.nn.Linear(2, 2))))


def send(x):
    g = gen(x)
    a = next(g)
    b = g.send(3)
    return a + b


def throw(x):
    g = gen(x)
    next(g)
    try:
        g.throw(ValueError("stop"))
    except ValueError:
        pass
    return x


def close(x):
    g = gen(x)
    next(g)
    g.close()
    return x


def yield_from(x):
    return list(delegate(x))


def returns_generator(x):
    return gen(x)


def exit_stack(x):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        stack.callback(print, "bye")
        return x + 1


def suppress(x):
    with contextlib.suppress(ZeroDivisionError):
        x = x / 0 + 1 / 0
    return x


def swallow(x):
    with Swallow():
        raise ValueError("gone")
    return x


def redirect(x):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("hidden")
    return x + len(buf.getvalue())


def nested_ctx_with_break(x):
    with torch.no_grad(), torch.autocast("cpu"):
        torch._dynamo.graph_break()
        return x + 1


for f in (send, throw, close, yield_from, returns_generator, exit_stack, suppress, swallow,
          redirect):
    attempt(f)
try:
    torch.compile(nested_ctx_with_break, backend="eager")(torch.randn(2))
except Exception as e:
    print(type(e).__name__, e)
