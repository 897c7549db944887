"""The protection layer: one addon per concern (`manifold.addons` orders them), each plugged into
the hooks it needs (`manifold.hooks`). See docs/security.md."""
