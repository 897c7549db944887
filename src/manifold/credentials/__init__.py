"""Credentials the gateway presents to upstream servers: an OAuth 2.1 client (`oauth.py`), its
login flow (`login.py`), the encrypted token store (`tokenstore.py`) and the provider that puts
a fresh access token on each upstream request (`provider.py`). Imported only when an upstream
has `oauth` configured (or by `manifold auth login`)."""
