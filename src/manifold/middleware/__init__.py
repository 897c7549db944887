"""Call addons (the `call` hook), one concern per module; `manifold.addons` orders them."""
