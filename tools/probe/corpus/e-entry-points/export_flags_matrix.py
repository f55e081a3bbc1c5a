# aims: GB0353 GB0173 GB4778 GB1380
# Small models with optional, keyword-only, *args and **kwargs inputs, exported through every
# entry point and with the export config flags flipped.
import torch

DEFAULT = torch.tensor(1.0)


class Optional(torch.nn.Module):
    def forward(self, x, bias=None, scale=DEFAULT):
        return x * scale if bias is None else x + bias


class KwOnly(torch.nn.Module):
    def forward(self, x, *, scale=DEFAULT):
        return x * scale


class Star(torch.nn.Module):
    def forward(self, *args, **kwargs):
        return args[0] + sum(kwargs.values())


class Nested(torch.nn.Module):
    def forward(self, batch):
        return batch["x"] * batch["y"][0]


def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


x = torch.randn(3)
inputs = {
    Optional: ((x,), {}),
    KwOnly: ((x,), {}),
    Star: ((x,), {"w": x}),
    Nested: (({"x": x, "y": [x]},), {}),
}
try:
    import torch._export.config as export_config
except ImportError:
    export_config = None
flags = [None]
if export_config is not None and hasattr(export_config, "use_new_tracer_experimental"):
    flags = [True, False]
for flag in flags:
    if flag is not None:
        export_config.use_new_tracer_experimental = flag
    for cls, (args, kwargs) in inputs.items():
        attempt(lambda: torch._dynamo.export(cls())(*args, **kwargs))
        attempt(lambda: torch._dynamo.export(cls(), aten_graph=True)(*args, **kwargs))
        attempt(lambda: torch.export.export(cls(), args, kwargs, strict=True))
        attempt(lambda: torch.export.export(cls(), args, kwargs, strict=False))
        attempt(
            lambda: torch.export.export(
                cls(), args, kwargs, strict=True,
                dynamic_shapes=None,
            ).module()(*args, **kwargs)
        )
