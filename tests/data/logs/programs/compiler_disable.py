import torch

torch._logging.set_logs(graph_breaks=True)


@torch.compiler.disable
def preprocess(x):
    return (x - x.mean()) / x.std()


def fn(x):
    return preprocess(x).relu()


torch.compile(fn, backend="eager")(torch.randn(8))
