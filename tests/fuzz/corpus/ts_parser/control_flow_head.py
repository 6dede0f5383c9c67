class ControlFlow(Module):
  __parameters__ = []
  __buffers__ = ["running", ]
  running : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  table : Dict[str, int]
  opt : NoneType
  lin : __torch__.torch.nn.modules.linear.___torch_mangle_686.Linear
  layers : __torch__.torch.nn.modules.container.ModuleList
  seq : __torch__.torch.nn.modules.container.___torch_mangle_688.Sequential
  scaler : __torch__.Scaler
  names : Final[Tuple[str, str]] = ("a", "b")
  depth : Final[int] = 3
  def forward(self: __torch__.ControlFlow,
    x: Tensor,
    n: int=2,
    mask: Optional[Tensor]=None,
    scale: float=1.) -> Tuple[Tensor, List[int], Dict[str, Tensor]]:
    if torch.eq(torch.dim(x), 2):
      pass
    else:
      _0 = torch.format("expected a matrix, got {} dims", torch.dim(x))
      ops.prim.RaiseException(torch.add("AssertionError: ", _0))
    if torch.__is__(mask, None):
      mask0 = torch.ones_like(x)
    else:
      mask1 = unchecked_cast(Tensor, mask)
      _1 = torch.eq(ops.prim.dtype(mask1), 11)
      if _1:
        mask2 = torch.to(mask1, 6)
      else:
        mask2 = torch.mul(mask1, 1.)
      mask0 = mask2
    lin = self.lin
    y = torch.mul((lin).forward(x, ), mask0)
    layers = self.layers
    _00 = getattr(layers, "0")
    _10 = getattr(layers, "1")
    y0 = (_00).forward(y, )
    y1 = (_10).forward(y0, )
    seq = self.seq
    y2 = (seq).forward(y1, )
    scaler = self.scaler
    y3 = (scaler).forward(y2, )
    sizes = annotate(List[int], [])
    y4 = y3
    _2 = 0
    _3 = torch.gt(n, 0)
    while _3:
      _4 = torch.append(sizes, torch.mul(_2, 3))
      _5 = torch.eq(torch.remainder(_2, 2), 0)
      if _5:
        _6 = y4
      else:
        _6 = torch.add(y4, float(_2))
      _7 = torch.add(_2, 1)
      _8 = torch.__and__(torch.lt(_7, n), True)
      _3, y4, _2 = _8, _6, _7
    _9 = torch.gt(torch.sum(y4), -1000000000.)
    k = 0
    _11 = bool(_9)
    while _11:
      k0 = torch.add(k, 1)
      if torch.gt(k0, 3):
        _12 = False
      else:
        if torch.lt(k0, 5):
          _14 = torch.gt(torch.sum(y4), -1000000000.)
          _13 = bool(_14)
        else:
          _13 = False
        _12 = _13
      _11, k = _12, k0
    out = annotate(Dict[str, Tensor], {})
    torch._set_item(out, "a", y4)
    torch._set_item(out, "b", y4)
    table = self.table
    _15 = torch.items(table)
    for _16 in range(torch.len(_15)):
      key, v, = _15[_16]
      _17 = torch.append(sizes, v)
    if torch.gt(k, 100):
      ops.prim.RaiseException(torch.add("too many: ", str(k)), "builtins.RuntimeError")
    else:
      pass
    c = __torch__.Counter.__new__(__torch__.Counter)
    _18 = (c).__init__(1, )
    _19 = torch.append(sizes, (c).bump(2, ))
    _20 = torch.append(sizes, 7)
    _21 = torch.append(sizes, 2)
    if torch.gt(scale, 0.5):
      z = y4
    else:
      z = torch.neg(y4)
    z0 = __torch__.helper(z, 2, 1.0000000000000001e-05, )
    _22 = __torch__.torch.autograd.grad_mode.no_grad.__new__(__torch__.torch.autograd.grad_mode.no_grad)
    _23 = (_22).__init__()
    with _22:
      z1 = torch.add(z0, 1)
    if torch.gt(torch.size(z1, 1), 2):
      _24 = torch.slice(torch.slice(z1), 1, 0, 2)
      z2 = _24
    else:
      z2 = z1
    z3 = torch.slice(z2, -1, None, 1)
    sq = annotate(List[int], [])
    for _25 in range(torch.len(sizes)):
      v0 = sizes[_25]
      _26 = torch.append(sq, torch.mul(v0, v0))
    s = torch.format("{}-{}", torch.len(sq), "x")
    if torch.startswith(s, "0"):
      _27 = True