# Sourced by the run_* peer scripts: ONNX Runtime from npm's onnxruntime-node, a peer only,
# installed on first use into ${XDG_CACHE_HOME:-~/.cache}/focal-peers (outside the
# checkout). After `find_ort LOG`, ort_dir holds node_modules/onnxruntime-node and
# have_ort is 1, or have_ort is 0 and a message says why ONNX Runtime is skipped
# (no node/npm, or the registry not reachable; npm's output goes to LOG).
ort_version=1.30.0
ort_dir="${XDG_CACHE_HOME:-$HOME/.cache}/focal-peers/onnxruntime-node-$ort_version"

find_ort() {  # LOG
  have_ort=0
  if [[ -f "$ort_dir/node_modules/onnxruntime-node/package.json" ]]; then
    have_ort=1
  elif command -v npm >/dev/null && command -v node >/dev/null; then
    echo "== installing onnxruntime-node@$ort_version into $ort_dir (a peer only)" >&2
    mkdir -p "$ort_dir"
    # The package bundles its CPU binaries; its install script only fetches GPU ones.
    if timeout 300 npm install --prefix "$ort_dir" --no-audit --no-fund --ignore-scripts \
        "onnxruntime-node@$ort_version" >"$1" 2>&1; then
      have_ort=1
    else
      echo "$(basename "$0"): npm could not install onnxruntime-node ($(tail -n 1 "$1")): ONNX Runtime skipped" >&2
    fi
  else
    echo "$(basename "$0"): no node/npm: ONNX Runtime skipped" >&2
  fi
}
