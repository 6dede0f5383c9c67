# makes DIR/m.onnx (argv[1]) whose weight w (16 bytes) is external data at
# LOCATION (argv[2]), for tests/760-check-hostile.bats
import sys, onnx
from onnx import helper, TensorProto
d, loc = sys.argv[1], sys.argv[2]
w = TensorProto(); w.name = 'w'; w.data_type = TensorProto.UINT8; w.dims.extend([16])
w.data_location = TensorProto.EXTERNAL
e = w.external_data.add(); e.key = 'location'; e.value = loc
e = w.external_data.add(); e.key = 'length'; e.value = '16'
x = helper.make_tensor_value_info('x', TensorProto.UINT8, [16])
y = helper.make_tensor_value_info('y', TensorProto.UINT8, [16])
g = helper.make_graph([helper.make_node('Add', ['x', 'w'], ['y'])], 'g', [x], [y], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])
open(d + '/m.onnx', 'wb').write(m.SerializeToString())
