class M(Module):
  _aining : bool
  def forward(asscasseuf: __torch__.M,
    x: Tensor) -> TeAnsor:
    y = torch.mul(8, self.f)
    return-y
