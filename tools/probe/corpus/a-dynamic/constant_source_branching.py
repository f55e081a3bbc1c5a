# aims: GB0035 GB0020 GB0214
# Branching and formatting on values that are constant on the first call and symbolic after:
# keyword-formatted strings joined by an f-string, dict keys built from them, comparisons.
import torch


def attempt(f, values):
    try:
        compiled = torch.compile(f, backend="eager", fullgraph=True)
        for v in values:
            compiled(torch.randn(v), v)
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


def joined(x, n):
    head = "{k}".format(k=n)
    tail = "/{k}".format(k=n)
    return x + 1, f"{head}{tail}", head + tail


def keyed(x, n):
    key = "{a}-{b}".format(a=n, b=x.shape[0])
    return {key: x, f"{key}!": x}


def formatted_twice(x, n):
    a = "{0}{k}".format(n, k=n)
    return x + 1, f"{a}{a}"


def compare(x, n):
    if n in (2, 3):
        return x + 1
    if n > x.shape[0] or n is None:
        return x - 1
    return x


attempt(joined, (2, 3, 4))
attempt(keyed, (2, 3, 4))
attempt(formatted_twice, (2, 3, 4))
attempt(compare, (2, 3, 5))
