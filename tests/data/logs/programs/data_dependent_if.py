import torch

torch._logging.set_logs(graph_breaks=True)


def clip_loss(loss):
    if loss > 10.0:
        return loss / 10.0
    return loss


torch.compile(clip_loss, backend="eager")(torch.tensor(12.0))
