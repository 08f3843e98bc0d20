"""A residual block that adds its skip connection with sum-double's custom operator."""

from .block import ResidualBlock, train

__all__ = ["ResidualBlock", "train"]
