"""The user's own Chrome: finding it (a live ``DevToolsActivePort`` in a profile dir, or a Chrome
on 9222), its one websocket handshake (which may wait for the person to click Allow), attaching
and detaching without changing anything the user left, and the hints that say how to turn
Chrome's remote-debugging toggle on.
"""
