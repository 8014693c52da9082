window.loaded = (window.loaded || 0) + 1;
