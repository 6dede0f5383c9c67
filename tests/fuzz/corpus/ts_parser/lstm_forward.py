def forward__0(self: __torch__.torch.nn.modules.rnn.LSTM,
  input: Tensor,
  hx: Optional[Tuple[Tensor, Tensor]]=None) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
  _0 = "For batched 3-D input, hx and cx should also be 3-D but got ({}-D, {}-D) tensors"
  _1 = "For unbatched 2-D input, hx and cx should also be 2-D but got ({}-D, {}-D) tensors"
  is_batched = torch.eq(torch.dim(input), 3)
  if torch.__not__(is_batched):
    input0 = torch.unsqueeze(input, 0)
  else:
    input0 = input
  max_batch_size = torch.size(input0, 0)
  if torch.__is__(hx, None):
    _2 = ops.prim.dtype(input0)
    _3 = ops.prim.device(input0)
    h_zeros = torch.zeros([2, max_batch_size, 16], dtype=_2, layout=None, device=_3)
    _4 = ops.prim.dtype(input0)
    _5 = ops.prim.device(input0)
    c_zeros = torch.zeros([2, max_batch_size, 16], dtype=_4, layout=None, device=_5)
    hx0 = (h_zeros, c_zeros)
  else:
    hx1 = unchecked_cast(Tuple[Tensor, Tensor], hx)
    if is_batched:
      _6 = torch.ne(torch.dim((hx1)[0]), 3)
      if _6:
        _7 = True
      else:
        _8 = torch.ne(torch.dim((hx1)[1]), 3)
        _7 = _8
      if _7:
        msg = torch.format(_0, torch.dim((hx1)[0]), torch.dim((hx1)[1]))
        ops.prim.RaiseException(msg, "builtins.RuntimeError")
      else:
        pass
      hx2 = hx1
    else:
      _9 = torch.ne(torch.dim((hx1)[0]), 2)
      if _9:
        _10 = True
      else:
        _11 = torch.ne(torch.dim((hx1)[1]), 2)
        _10 = _11
      if _10:
        msg0 = torch.format(_1, torch.dim((hx1)[0]), torch.dim((hx1)[1]))
        ops.prim.RaiseException(msg0, "builtins.RuntimeError")
      else:
        pass
      hx3 = (torch.unsqueeze((hx1)[0], 1), torch.unsqueeze((hx1)[1], 1))
      hx2 = hx3
    hx4 = (self).permute_hidden(hx2, None, )
    hx0 = hx4
  _12 = (self).check_forward_args(input0, hx0, None, )
  _flat_weights = self._flat_weights
  training = self.training
  _13, _14, = hx0
  _15, _16, _17 = torch.lstm(input0, [_13, _14], _flat_weights, True, 2, 0., training, False, True)
  hidden = (_16, _17)
  if torch.__not__(is_batched):
    output0 = torch.squeeze(_15, 0)
    hidden1 = (torch.squeeze(_16, 1), torch.squeeze(_17, 1))
    hidden0, output = hidden1, output0
  else:
    hidden0, output = hidden, _15
  _18 = (self).permute_hidden(hidden0, None, )
  return (output, _18)
