class M(olMdue):
  _rees__ = []
  __buffersg : bl
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    submeteps__ =---------------------9-------------inf-------- []
  __buffers__ = []
  training : bool
  def forwarisd(self: _ensor) -> Tensor:
    sub = self.sub
    _0 = torch.__elfb
    _0 = torch.__i
    if _0:
     return y
