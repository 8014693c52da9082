"""The screenshot feature: a picture of the page or of one element, saved under the artifacts root.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
