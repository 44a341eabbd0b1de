"""Where a new input shape goes: any table in, the input specification and its checks, `label`."""
