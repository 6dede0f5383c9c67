#!/bin/sh
# install-deps.sh - installs what pt2onnx needs to build and test on Debian
# 12 (run as root; `make deps` calls it).  Build: a C compiler, make,
# protobuf-c, msgpack-c, zlib.  Tests and oracles only: bats, GNU parallel
# (bats --jobs), strace (605 sees the kernel copy), python3-onnx,
# python3-numpy, python3-torch and python3-torchvision (the oracles that build
# real models), libonnx-testdata, graphviz, clang (fuzzing), Node.js with
# ONNX Runtime from npm.  The tools themselves need none of the test packages at run time.
set -eu
cd "$(dirname "$0")/.."

BUILD_PKGS="build-essential pkg-config libprotobuf-c-dev protobuf-c-compiler libmsgpack-dev libjansson-dev zlib1g-dev libopenblas-dev"
TEST_PKGS="bats parallel python3 python3-onnx python3-numpy python3-torch python3-torchvision libonnx-testdata graphviz strace clang libclang-rt-14-dev nodejs npm"

missing=""
for p in $BUILD_PKGS $TEST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# node may come from elsewhere on the machine (not Debian's package)
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	missing=$(echo "$missing" | tr ' ' '\n' | grep -vx 'nodejs' | grep -vx 'npm' | tr '\n' ' ')
fi
if [ -n "$(echo "$missing" | tr -d ' ')" ]; then
	echo "install-deps: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# ONNX Runtime for Node (prebuilt binaries ship inside the npm package)
# (again when the installed version is not the one package.json names)
want=$(sed -n 's/.*"onnxruntime-node": *"\([^"]*\)".*/\1/p' tests/oracle/package.json)
have=$(sed -n 's/^  "version": *"\([^"]*\)".*/\1/p' \
	tests/oracle/node_modules/onnxruntime-node/package.json 2>/dev/null || true)
if [ "$have" != "$want" ]; then
	echo "install-deps: installing onnxruntime-node $want into tests/oracle"
	(cd tests/oracle && npm install --no-audit --no-fund --ignore-scripts >/dev/null)
fi
echo "install-deps: done"
