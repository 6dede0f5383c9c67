class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    h = x
    while True:
      h = torch.relu(h)
    return h
