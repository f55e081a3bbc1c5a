# aims: GB0065 GB0052
# The same small programs under fullgraph False, dynamic=True, backend aot_eager, and the
# Dynamo config flags a user may set (part 1 of 2).
import torch


def body(x, n):
    y = x * n
    if y.sum() > 0:
        y = y + 1
    print("side effect")
    return helper(y) + n


def helper(t):
    torch._dynamo.graph_break()
    return t * 2


def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


settings = [
    {},
    {"nested_graph_breaks": True},
    {"capture_scalar_outputs": True},
    {"capture_dynamic_output_shape_ops": True},
    {"inline_inbuilt_nn_modules": False},
    {"assume_static_by_default": False},
]
for setting in settings:
    known = {k: v for k, v in setting.items() if hasattr(torch._dynamo.config, k)}
    with torch._dynamo.config.patch(**known):
        for kwargs in ({}, {"dynamic": True}, {"backend": "aot_eager"}):
            options = {"backend": "eager", **kwargs}
            compiled = torch.compile(body, **options)
            attempt(lambda: [compiled(torch.randn(k), k) for k in (2, 3, 4)])
