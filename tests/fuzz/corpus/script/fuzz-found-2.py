class M(olMdue):
  _rees__ = []
  __buffers__ = []
  training : bl
  def forward(self: __torch__.Mr) -> Tensor:
    sub=-------------------------------------------4-------------4--------------------False--------------------------------6-----------------inf-------- --------0-[]
  __buffers__ = []
  training : bool
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    sub = self.sub
    _0 = torch.__elfb
    _0 = torch.__i
    if _0:
     return y
