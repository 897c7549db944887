#!/usr/bin/env bash
# Start the demo: the HTTP demo upstream in the background, then `manifold serve` on the
# bundled demo config. Ctrl-C stops both.
set -euo pipefail
VENV="${VENV:-.venv}"
export MANIFOLD_PYTHON="$VENV/bin/python"
export MANIFOLD_DEMO_CLOCK_PORT="${MANIFOLD_DEMO_CLOCK_PORT:-8766}"
"$VENV/bin/python" -m manifold.demo clock --http --port "$MANIFOLD_DEMO_CLOCK_PORT" >/dev/null 2>&1 &
CLOCK=$!
trap 'kill $CLOCK 2>/dev/null; wait $CLOCK 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$MANIFOLD_DEMO_CLOCK_PORT") 2>/dev/null && break
  sleep 0.1
done
"$VENV/bin/manifold" serve --config src/manifold/demo/demo.yaml "$@"
