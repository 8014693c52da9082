"""One tab and what the agent does to it: the page handle, the registry (order, stable ids, the
selected page), navigation over our own CDP session and the follower of one move, opening and
closing tabs, and emulation that detach undoes.
"""
