# aims: GB0121 GB0161 GB0188
# nn.Module's own methods called on self inside forward, on a module Dynamo inlines and on one
# it specializes (torchdynamo_force_dynamic = False).
import torch

CALLS = {
    "state_dict": lambda m, x: m.state_dict(),
    "apply": lambda m, x: m.apply(lambda s: None),
    "to": lambda m, x: m.to(torch.float32),
    "float": lambda m, x: m.float(),
    "cpu": lambda m, x: m.cpu(),
    "register_buffer": lambda m, x: m.register_buffer("extra", x),
    "register_parameter": lambda m, x: m.register_parameter("p", None),
    "add_module": lambda m, x: m.add_module("extra_lin", torch.nn.Identity()),
    "named_modules": lambda m, x: list(m.named_modules()),
    "children": lambda m, x: list(m.children()),
    "named_parameters": lambda m, x: dict(m.named_parameters()),
    "buffers": lambda m, x: list(m.buffers()),
    "zero_grad": lambda m, x: m.zero_grad(),
    "train": lambda m, x: m.train(),
    "eval": lambda m, x: m.eval(),
    "requires_grad_": lambda m, x: m.requires_grad_(False),
    "get_submodule": lambda m, x: m.get_submodule("lin"),
    "get_parameter": lambda m, x: m.get_parameter("lin.weight"),
    "extra_repr": lambda m, x: m.extra_repr(),
    "get_name": lambda m, x: m._get_name(),
    "repr": lambda m, x: repr(m),
    "dir": lambda m, x: dir(m),
    "type": lambda m, x: m.type(torch.float32),
    "share_memory": lambda m, x: m.share_memory(),
    "load_state_dict": lambda m, x: m.load_state_dict(m.state_dict()),
    "register_forward_hook": lambda m, x: m.register_forward_hook(lambda *a: None),
    "register_full_backward_hook": lambda m, x: m.register_full_backward_hook(lambda *a: None),
    "set_extra_state": lambda m, x: m.set_extra_state({}),
    "get_extra_state": lambda m, x: m.get_extra_state(),
    "setattr_module": lambda m, x: setattr(m, "lin", torch.nn.Identity()),
    "delattr_module": lambda m, x: delattr(m, "lin"),
    "getattr_missing": lambda m, x: getattr(m, "missing", None),
    "getattr_dunder": lambda m, x: m.__dict__["_modules"],
    "call_forward_unbound": lambda m, x: type(m).forward(m, x, skip=True),
    "compile": lambda m, x: m.compile(),
    "half_back": lambda m, x: m.half().float(),
    "modules_len": lambda m, x: len(list(m.modules())),
    "named_buffers_prefix": lambda m, x: list(m.named_buffers(prefix="p")),
    "parameters_recurse": lambda m, x: list(m.parameters(recurse=False)),
    "getstate": lambda m, x: m.__getstate__(),
    "setstate": lambda m, x: m.__setstate__(m.__getstate__()),
}


def make(force_dynamic):
    class Net(torch.nn.Module):
        if not force_dynamic:
            torchdynamo_force_dynamic = False

        def __init__(self, call):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.call = call

        def forward(self, x, skip=False):
            if not skip:
                self.call(self, x)
            return x + 1

    return Net


for force_dynamic in (True, False):
    Net = make(force_dynamic)
    for name, call in CALLS.items():
        try:
            torch.compile(Net(call), backend="eager", fullgraph=True)(torch.randn(2))
        except Exception as e:
            print(name, type(e).__name__, e)
        torch._dynamo.reset()
