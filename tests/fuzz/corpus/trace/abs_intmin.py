class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    n = -9223372036854775807 - 1
    m = abs(n)
    return torch.mul(x, m)
