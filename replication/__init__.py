if not __name__.startswith("kafpy."):
    # Reached as a bare top-level name (the checkout on sys.path): refuse, or every module below
    # would load a second time beside its kafpy.* self.
    raise ImportError(f"import kafpy.{__name__}, not {__name__}")
