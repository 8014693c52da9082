"""The inspect feature: looking at one element: which CSS rule wins, highlighting it, letting the person pick one.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
