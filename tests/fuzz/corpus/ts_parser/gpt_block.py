class Block(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  ln1 : __torch__.torch.nn.modules.normalization.LayerNorm
  attn : __torch__.CausalSelfAttention
  ln2 : __torch__.torch.nn.modules.normalization.LayerNorm
  mlp : __torch__.torch.nn.modules.container.___torch_mangle_720.Sequential
  def forward(self: __torch__.Block,
    x: Tensor) -> Tensor:
    attn = self.attn
    ln1 = self.ln1
    _0 = (attn).forward((ln1).forward(x, ), )
    x0 = torch.add(x, _0)
    mlp = self.mlp
    ln2 = self.ln2
    _1 = (mlp).forward((ln2).forward(x0, ), )
    return torch.add(x0, _1)
class CausalSelfAttention(Module):
  __parameters__ = []
  __buffers__ = ["mask", ]
  mask : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  h : int
  qkv : __torch__.torch.nn.modules.linear.___torch_mangle_716.Linear
  proj : __torch__.torch.nn.modules.linear.___torch_mangle_717.Linear
  def forward(self: __torch__.CausalSelfAttention,
    x: Tensor) -> Tensor:
    _2 = __torch__.torch.nn.functional.softmax
    b, t, c, = torch.size(x)
    qkv = self.qkv
    _3 = torch.split((qkv).forward(x, ), c, 2)
    q, k, v, = _3
    h = self.h
    h0 = self.h
    _4 = torch.view(q, [b, t, h, torch.floordiv(c, h0)])
    q0 = torch.transpose(_4, 1, 2)
    h1 = self.h
    h2 = self.h
    _5 = torch.view(k, [b, t, h1, torch.floordiv(c, h2)])
    k0 = torch.transpose(_5, 1, 2)
    h3 = self.h
    h4 = self.h
    _6 = torch.view(v, [b, t, h3, torch.floordiv(c, h4)])
    v0 = torch.transpose(_6, 1, 2)
    _7 = torch.matmul(q0, torch.transpose(k0, -2, -1))
    _8 = torch.div(1., torch.pow(torch.size(k0, -1), 0.5))
    att = torch.mul(_7, _8)
    mask = self.mask
    _9 = torch.slice(torch.slice(torch.slice(mask), 1), 2, None, t)
    _10 = torch.eq(torch.slice(_9, 3, None, t), 0)
    att0 = torch.masked_fill(att, _10, -inf)
    att1 = _2(att0, -1, 3, None, )
    _11 = torch.transpose(torch.matmul(att1, v0), 1, 2)
    y = torch.view(torch.contiguous(_11), [b, t, c])
    proj = self.proj
    return (proj).forward(y, )
