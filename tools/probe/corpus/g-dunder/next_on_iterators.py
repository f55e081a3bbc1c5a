# aims: GB0118 GB1752
# next() and iteration on every kind of iterator Dynamo models: itertools objects, map, filter,
# zip, reversed, iter(callable, sentinel), dict and set iterators, generators, user iterators.
import itertools

import torch


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


def attempt(make):
    def fn(x):
        it = make(x)
        a = next(it)
        b = next(it, None)
        return x + 1, a, b, list(itertools.islice(it, 2))  # some never end

    try:
        torch.compile(fn, backend="eager", fullgraph=True)(torch.randn(3))
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


for make in (
    lambda x: itertools.count(1),
    lambda x: itertools.cycle([1, 2]),
    lambda x: itertools.repeat(x, 3),
    lambda x: itertools.chain([1], [2]),
    lambda x: itertools.chain.from_iterable([[1], [2]]),
    lambda x: itertools.islice(range(5), 3),
    lambda x: itertools.accumulate([1, 2, 3]),
    lambda x: itertools.product([1, 2], [3]),
    lambda x: itertools.permutations([1, 2]),
    lambda x: itertools.combinations([1, 2, 3], 2),
    lambda x: itertools.groupby([1, 1, 2]),
    lambda x: itertools.zip_longest([1], [2, 3]),
    lambda x: itertools.starmap(pow, [(2, 3)]),
    lambda x: itertools.takewhile(lambda v: v < 2, [1, 2]),
    lambda x: itertools.dropwhile(lambda v: v < 2, [1, 2]),
    lambda x: itertools.tee([1, 2])[0],
    lambda x: itertools.pairwise([1, 2, 3]),
    lambda x: itertools.compress([1, 2], [1, 0]),
    lambda x: itertools.filterfalse(None, [0, 1]),
    lambda x: map(abs, [-1, 2]),
    lambda x: filter(None, [0, 1, 2]),
    lambda x: zip([1, 2], [3, 4]),
    lambda x: enumerate(x),
    lambda x: reversed([1, 2]),
    lambda x: reversed(range(3)),
    lambda x: iter(x),
    lambda x: iter(x.shape),
    lambda x: iter(lambda: 1, 2),
    lambda x: iter({"a": 1}),
    lambda x: iter({"a": 1}.items()),
    lambda x: iter({1, 2}),
    lambda x: iter(frozenset([1])),
    lambda x: iter("ab"),
    lambda x: iter(b"ab"),
    lambda x: iter(range(3)),
    lambda x: (t * 2 for t in x),
    lambda x: Countdown(3),
    lambda x: iter(Countdown(3)),
    lambda x: iter([x, x]),
    lambda x: iter(torch.nn.ModuleList([torch.nn.Identity()])),
    lambda x: iter(torch.nn.Sequential(torch.nn.Identity())),
    lambda x: iter(torch.nn.ParameterList([torch.nn.Parameter(torch.ones(1))])),
    lambda x: iter(x.unbind(0)),
    lambda x: iter(x.split(1)),
):
    attempt(make)
