import torch

torch._logging.set_logs(graph_breaks=True)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        print("hidden shape:", h.shape)
        return self.fc2(h)


model = torch.compile(MLP(), backend="eager")
model(torch.randn(2, 8))
