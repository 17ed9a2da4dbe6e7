"""Shipped keyphrase-weighter checkpoints (one folder each: trained tensors + metadata.json)."""
