class M(olMdue):

  training : bl
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    submeters__ =----------------------------------------------------------------False--------------------------------6------------ y
