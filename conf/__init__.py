"""The toolkit's Hydra configs, shipped as package data so that an installed wheel finds them.

``mobilepa run`` and ``mobilepa sweep`` compose from ``pkg://conf`` (this package), so the same configs
are found from the checkout and from site-packages; a user's own folder joins the search path with
``--config-dir DIR`` or ``hydra.searchpath=[file:///DIR]`` (docs/sweeps.md)."""
