"""Training scripts for the pip reader's two small networks (needs the ``train`` extra)."""
