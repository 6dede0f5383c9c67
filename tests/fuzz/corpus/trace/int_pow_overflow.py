class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    n = 3 ** 1000
    return torch.mul(x, n)
