"""One module per block kind; each module is a plugin (see the distribution's entry points)."""
