#!/usr/bin/env bash
# Start the demo: the HTTP demo upstream in the background, then `manifold serve` on the
# bundled demo config. Ctrl-C stops both. MANIFOLD_PORT (default 8765) and
# MANIFOLD_DEMO_CLOCK_PORT (default 8766) choose the ports.
set -euo pipefail
VENV="${VENV:-.venv}"
export MANIFOLD_PYTHON="$VENV/bin/python"
export MANIFOLD_DEMO_CLOCK_PORT="${MANIFOLD_DEMO_CLOCK_PORT:-8766}"
PORT="${MANIFOLD_PORT:-8765}"
echo "==> starting the demo upstream 'clock' on http://127.0.0.1:$MANIFOLD_DEMO_CLOCK_PORT/mcp"
"$VENV/bin/python" -m manifold.demo clock --http --port "$MANIFOLD_DEMO_CLOCK_PORT" >/dev/null 2>&1 &
CLOCK=$!
trap 'kill $CLOCK 2>/dev/null; wait $CLOCK 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$MANIFOLD_DEMO_CLOCK_PORT") 2>/dev/null && break
  sleep 0.1
done
MANIFOLD="$(cd "$VENV/bin" && pwd -P)/manifold"
echo "==> starting the gateway on http://127.0.0.1:$PORT/mcp ..."
echo "    For an IDE (stdio), run $MANIFOLD run --config YOUR.yaml;"
echo "    'make print-ide-config CONFIG=YOUR.yaml' prints the JSON snippet for this checkout."
"$VENV/bin/manifold" serve --config src/manifold/demo/demo.yaml --port "$PORT" "$@"
