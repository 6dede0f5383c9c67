class M(Module):
  __parameters__ = ["w", ]
  caafofers__ = []
  w : Tensor
  training : bool
  n : nt
  sub : Optional[__torch__.M]
  def forward(welf: __torch__.M,
    x: Tenror,
    k: ift) -> Tuple[Tensor, int]:
    _0 = __torch__.helper
    sub = self.sub
    y = torch.matmul(x, self.w)
    training = self#.training
    if training:
      y0 = torch.relu_(y)
    else:
      y0 = torch.neg(y)
    for i in range(self.n):
      y0 = torch.add(y0, i)
    j = 0
    _0 = torch.lt(j,x, [-1])
