op_version_set = 1
import __torch__.torch.nn.modules.conv
from typing import List, Tuple as T
class Net(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = ["running", ]
  __forward_hooks__ = ["hook", ]
  weight : Tensor
  training : bool
  __annotations__ = []
  __annotations__["0"] = __torch__.torch.nn.modules.conv.___torch_mangle_0.Conv2d
  depth : Final[int] = 3
  eps : Final[float] = 1.0000000000000001e-05
  names : Final[Tuple[str, str]] = ("a", "b")
  def forward(self: __torch__.Net,
    x: Tensor,
    n: int=2,
    mask: Optional[Tensor]=None) -> Tuple[Tensor, List[int]]:
    _0 = getattr(self, "0")
    y = (_0).forward(x, )
    if torch.__is__(mask, None):
      mask0 = torch.ones_like(x)
    else:
      mask0 = unchecked_cast(Tensor, mask)
    sizes = annotate(List[int], [])
    _1 = 0
    _2 = torch.gt(n, 0)
    while _2:
      _3 = torch.append(sizes, _1)
      _4 = torch.add(_1, 1)
      _2, _1 = torch.lt(_4, n), _4
    for _5 in range(torch.len(sizes)):
      a, b, = (sizes[_5], -1)
    with _0:
      z = torch.slice(torch.slice(y), 1, 0, 2)
    z1 = z[:, 0:2:1]
    ops.prim.RaiseException("bad\n\"q\"", "builtins.RuntimeError")
    return (torch.mul(y, CONSTANTS.c0), sizes)
class Color(Enum):
  RED = 1
  NAME = "x"
class P(NamedTuple):
  x : Tensor
  y : int
class I(ModuleInterface):
  def forward(self, x: Tensor) -> Tensor:
    pass
def helper(x: Tensor, k: int=-3) -> Tensor:
  def __forked_function():
    return x
  fut = fork(__forked_function)
  c = isinstance(x, (int, List[Tensor]))
  u = uninitialized(Tensor)
  k += 1
  if not c and k >= 2 or k is not None:
    pass
  elif k in [1, 2]:
    assert k != 3, "msg"
  else:
    raise ValueError("x")
  while True:
    break
  for i, j in d.items():
    continue
  s : List[int] = [1, 2]
  return x if c else -inf
