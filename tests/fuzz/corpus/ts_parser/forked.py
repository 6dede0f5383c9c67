class Forked(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.Forked,
    x: Tensor) -> Tensor:
    def __forked_function():
      _0 = __torch__.helper(x, 3, 1.0000000000000001e-05, )
      return _0
    fut = fork(__forked_function)
    return torch.add(torch.wait(fut), x)
def helper(x: Tensor,
    k: int=3,
    eps: float=1.0000000000000001e-05) -> Tensor:
  return torch.add(torch.mul(x, k), eps)
