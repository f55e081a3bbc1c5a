import torch

torch._logging.set_logs(graph_breaks=True)


def normalize(x):
    scale = x.abs().max().item()
    return x / scale


torch.compile(normalize, backend="eager")(torch.randn(4, 4))
