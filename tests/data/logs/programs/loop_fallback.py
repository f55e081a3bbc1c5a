import logging

import torch

torch._logging.set_logs(graph_breaks=True)
logger = logging.getLogger("train")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        logger.info("block done")           # logging call
        return h


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        print("after blocks", x.shape)      # print call
        if x.mean() > 0:                    # data-dependent branch
            x = x * 2
        vals = x.sum(dim=1).tolist()        # Tensor.tolist()
        return x, vals


net = torch.compile(Net(), backend="eager")
net(torch.randn(3, 4))
