"""Start to the first answered call: the measurement (``measure``), the bare client (``wire``), the TS client
(``ts_client.mjs``) and the table rows (``rows``). See ``measure``'s docstring and bench/README.md."""
