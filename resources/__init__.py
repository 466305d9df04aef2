"""Icons and the desktop entry, shipped as the package ``workbench.resources`` (see pyproject.toml)."""
