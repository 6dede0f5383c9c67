class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    u = torch.eye(4294967296)
    return torch.add(x, torch.sum(u))
