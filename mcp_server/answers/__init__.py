"""How an answer reads, in both renderings: the rules and the pieces several features share.

``lean`` drops null, false and empty values and writes lists as rows under ``columns``;
``budget`` is the size rule both renderings keep; ``models`` holds the answer models behind the
outputSchemas; ``listing`` what every list shares (cuts, places, paging lines); ``console``,
``network``, ``debug_lines``, ``pages`` and ``snapshot`` the rows and lines that more than one
feature prints (a click's follow-up lists requests, the bundle lists console entries). A
feature's own words live in its folder.

May import ``safety`` only.
"""
