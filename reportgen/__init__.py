"""reportgen: is this synthetic dataset fit to share?"""
__version__ = "0.1.0"
