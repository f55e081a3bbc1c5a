import torch

torch._logging.set_logs(graph_breaks=True)


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(4, 8, batch_first=True)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


torch.compile(Encoder(), backend="eager")(torch.randn(2, 5, 4))
