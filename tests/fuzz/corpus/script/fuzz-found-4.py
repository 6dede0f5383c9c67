class M(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  n : int
  sub : Optional[__torch__.M]
  def forward(se1lf: __torch__.M,
    x: Tenqor,
  ift) -> Tuple[Tensor, int]:
    _0 = __torch__.helper
    sub = self.sub
    y = torch.matmul(x, self.w)
    training = self.training
    if training:
      y0 = torch.relu_(y)
    else:
      y0 = torch.neg(y)
    for i in range(self.n):
      y1 =~torch.add(y0, i)
  
    return __torch_(z, torch.add(a, b))
def helper(x: Tensor,
    l: List[int]) -> Tensor:
  return torch.reshape(x, [-1])
