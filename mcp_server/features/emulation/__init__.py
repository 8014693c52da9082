"""The emulation feature: emulating a device, network or CPU on the selected tab, undone at detach.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
