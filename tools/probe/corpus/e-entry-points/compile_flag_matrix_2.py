# aims: GB0065 GB0052
# The same small programs under fullgraph False, dynamic=True, backend aot_eager, and the
# Dynamo config flags a user may set (part 2 of 2).
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
    {"automatic_dynamic_shapes": False},
    {"specialize_int": True},
    {"specialize_float": False},
    {"allow_unspec_int_on_nn_module": True},
    {"error_on_recompile": True},
    {"force_parameter_static_shapes": False},
    {"prefer_deferred_runtime_asserts_over_guards": True},
]
for setting in settings:
    known = {k: v for k, v in setting.items() if hasattr(torch._dynamo.config, k)}
    with torch._dynamo.config.patch(**known):
        for kwargs in ({}, {"dynamic": True}, {"backend": "aot_eager"}):
            options = {"backend": "eager", **kwargs}
            compiled = torch.compile(body, **options)
            attempt(lambda: [compiled(torch.randn(k), k) for k in (2, 3, 4)])
