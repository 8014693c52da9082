"""What a tab may load and where files may go: ``ALLOWED_URLS`` (the ``Fetch`` interception and the
loopback proxy for what it never sees), file URLs read as Chrome reads them, internal pages
refused, and download names safe on every system.
"""
