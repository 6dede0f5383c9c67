class M(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    sub = self.sub
    _0 = torch.__isnot__(sub, None)
    if _0:
      y = (self).forward(x, )
    else:
      y = torch.mul(x, self.f)
    return y
