class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  sub : Optional[__torch__.M]
  def forward(self: __torch__.M,
    x: Tensor,
    k: int) -> Tuple[Tensor, int]:
    _0 = __torch__.helper
    sub = self.sub
    y = torch.matmul(x, self.w)
    training = self.training
    if training:
      y0 = torch.relu_(y)
    else:
      y0 = torch.neg(y)
    for i in range(self.n):
      y0 = torch.add(y0, i)
    j = 0
    _1 = torch.lt(j, k)
    while _1:
      y0 = torch.sigmoid(y0)
      j0 = torch.add(j, 1)
      _1, j = torch.lt(j0, k), j0
    a, b, = self.t
    if torch.__is__(self.none, None):
      z = _0(y0, self.l)
    else:
      z = y0
    if bool(torch.gt(torch.sum(z), 0)):
      ops.prim.RaiseException("AssertionError: ")
    else:
      pass
    return (z, torch.add(a, b))
def helper(x: Tensor,
    l: List[int]) -> Tensor:
  return torch.reshape(x, [-1])
