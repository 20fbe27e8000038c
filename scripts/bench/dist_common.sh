# Set-up shared by the data-parallel benchmarks (sourced): paths, the text to train on
# (first argument), a scratch folder removed on exit, and a JSON field reader.
set -euo pipefail
py=${RUNNER_PYTHON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv/bin/python3}  # the .venv Python (numpy, torch)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runner=$root/build/runner
text=${1:-$root/recipes/lib/sample_text.txt}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

json() {  # json FILE KEY
  "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}
