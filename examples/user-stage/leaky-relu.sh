#!/bin/sh
# leaky-relu.sh - an example of a stage of your own in the pt2onnx pipeline:
# it reads ONNX-level IR in its text form on standard input (what
# `pt2onnx lower -S` writes), turns every Relu into a LeakyRelu with slope
# ALPHA (default 0.01), and writes the text IR on standard output for
# `pt2onnx fold` or `pt2onnx emit`, which read text as well as binary:
#
#   pt2onnx script model.pt -i 'x=f32[1,3,224,224]' | pt2onnx lower -S |
#       examples/user-stage/leaky-relu.sh 0.1 | pt2onnx fold |
#       pt2onnx emit -o model.onnx
#
# The text form is one node a line (docs/ir.md), so a line-oriented tool is
# enough: a node's kind is "= onnx::Relu(" after its output's type.  A
# stage that writes an op ONNX does not have (a typo, onnx::LeakyReLU) is
# refused by emit, naming the node.
set -eu
alpha=${1:-0.01}
case $alpha in
*[!0-9.eE+-]* | '')
	echo "leaky-relu.sh: '$alpha' is not a number" >&2
	exit 2
	;;
esac
# a float attribute is written with a '.' (1. and not 1: that is an int)
case $alpha in
*[.eE]*) ;;
*) alpha="$alpha." ;;
esac
exec sed "s/= onnx::Relu(/= onnx::LeakyRelu[alpha=$alpha](/"
