"""The tabs feature: the tabs and frames: listing, selecting (by id, URL, title), opening and closing,
the selected frame.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
