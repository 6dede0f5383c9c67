class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    t = torch.expand(x, [1000000000, 1000000000, 2, 2])
    return torch.sum(t)
