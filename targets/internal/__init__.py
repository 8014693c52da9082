"""The internal browser: Chromium found where installers put it, started through Playwright with a
debugging port so ``cdp_core`` captures it too, its temporary profiles created, removed with
retries and swept when a killed server left them (through ``cdp_core.lifetime``).
"""
