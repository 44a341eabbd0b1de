"""The Python side of the compiled kernel (`native/`): nothing else loads the plugin."""
