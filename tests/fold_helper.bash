# fold_helper.bash - what the 500-fold*.bats files share, on top of
# helper.bash: the sample IRs and the ORT oracle for folding (the unfolded
# graph, run by ONNX Runtime, is the reference for the folded one).
# Load with `load helper` then `load fold_helper`.
bats_require_minimum_version 1.5.0
DATA="$TESTS_DIR/data"

fold() { tool fold "$@"; }

reference() {
	"$PYTHON" "$ORACLE_DIR/reference.py" "$@"
}

# number of nodes in MODEL, subgraphs included
node_count() {
	"$PYTHON" -c "import onnx, sys
def count(g):
    return sum(1 + sum(count(a.g) if a.type == onnx.AttributeProto.GRAPH
                       else sum(count(x) for x in a.graphs)
                       for a in n.attribute) for n in g.node)
print(count(onnx.load(sys.argv[1], load_external_data=False).graph))" "$1"
}

# same_as_unfolded IR [NAME=FILE.npy ...]: emits IR as it is and after
# `fold`, checks the folded model with onnx.checker, runs both in ONNX
# Runtime on the same inputs and requires every output equal within 1e-5
# (relative to the largest magnitude) and fewer nodes after folding.
same_as_unfolded() {
	local ir=$1 f n_un n_fo
	shift
	set -o pipefail
	emit "$ir" -o unfolded.onnx || return 1
	fold "$ir" | emit -o folded.onnx || return 1
	"$PYTHON" "$ORACLE_DIR/onnx_check.py" folded.onnx >/dev/null || return 1
	ort_run unfolded.onnx want "$@" || return 1
	ort_run folded.onnx got "$@" || return 1
	for f in want/*.npy; do
		reference compare "got/${f#want/}" "$f" 1e-5 || return 1
	done
	n_un=$(node_count unfolded.onnx) || return 1
	n_fo=$(node_count folded.onnx) || return 1
	if [ "$n_fo" -ge "$n_un" ]; then
		echo "folded model has $n_fo nodes, unfolded $n_un"
		return 1
	fi
	echo "nodes: $n_un -> $n_fo"
}
