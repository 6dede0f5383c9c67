# hostile ONNX files for tests/760-check-hostile.bats, written as raw
# protobuf: huge_len_graph.onnx (ModelProto.graph claims 2**62 bytes) and
# nested_if_100k.onnx (If nodes nested 100000 deep through then_branch).
import sys

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def field(num, wt):
    return varint(num << 3 | wt)

d = sys.argv[1]
opset = field(8, 2) + varint(2) + field(2, 0) + varint(13)   # opset_import
ir = field(1, 0) + varint(8)                                   # ir_version
open(d + '/huge_len_graph.onnx', 'wb').write(
    ir + opset + field(7, 2) + varint(2 ** 62) + b'\x00' * 16)

# inside out: GraphProto{ node: NodeProto{ op_type "If", input "c",
#   attribute AttributeProto{ name "then_branch", type GRAPH, g: <inner> } } }
N = 100000
core = b''                                                    # innermost graph: empty
lens = []
pre_node = field(4, 2) + varint(2) + b'If' + field(1, 2) + varint(1) + b'c'
pre_attr = field(1, 2) + varint(11) + b'then_branch' + field(20, 0) + varint(5)
parts = []
inner = len(core)
for _ in range(N):
    attr_len = len(pre_attr) + len(field(6, 2)) + len(varint(inner)) + inner
    node_len = len(pre_node) + len(field(5, 2)) + len(varint(attr_len)) + attr_len
    graph_len = len(field(1, 2)) + len(varint(node_len)) + node_len
    parts.append((node_len, attr_len, inner))
    inner = graph_len
out = [ir, opset, field(7, 2), varint(inner)]
for node_len, attr_len, g in reversed(parts):
    out += [field(1, 2), varint(node_len), pre_node, field(5, 2),
            varint(attr_len), pre_attr, field(6, 2), varint(g)]
out.append(core)
open(d + '/nested_if_100k.onnx', 'wb').write(b''.join(out))
