import logging

import torch

torch._logging.set_logs(graph_breaks=True)
logger = logging.getLogger("train")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 4)
        self.dec = torch.nn.Linear(4, 2)

    def forward(self, x):
        h = self.enc(x)
        logger.info("encoded")              # logging call
        print("hidden mean", h.mean())      # print call
        if h.mean() > 0:                    # data-dependent branch
            h = h * 2
        scores = h.sum(dim=1).tolist()      # Tensor.tolist() on floats
        return self.dec(h), scores


net = torch.compile(Net(), backend="eager")
net(torch.randn(3, 4))
