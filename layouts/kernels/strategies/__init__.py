"""One module per copy strategy; :mod:`..registry` lists them in the order they are tried."""
